import Foundation
import HTTPTypes
import Logging
import MendCore
import MendHTTP

/// Keeps the latest usage headers of every response (errors included), and optionally slows requests down as the
/// usage approaches 100 %, so that the app never calls into a throttle.
final class UsageTracker: Sendable {
    private let latest = Locked<GraphUsage?>(nil)

    var usage: GraphUsage? { latest.withLock { $0 } }

    func record(_ headers: [String: String], now: Date) {
        guard let usage = GraphUsage(headers: headers, now: now) else { return }
        latest.withLock { $0 = usage }
    }
}

struct UsageMiddleware: ClientMiddleware {
    let tracker: UsageTracker
    /// Above this share (0…1) of any counter, requests are delayed; `nil` never delays.
    let slowDownAbove: Double?
    let maximumDelay: Duration
    let sleep: @Sendable (Duration) async throws -> Void
    let now: @Sendable () -> Date

    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        if let threshold = slowDownAbove, let usage = tracker.usage {
            let share = usage.highestPercentage / 100
            if share > threshold, threshold < 1 {
                let fraction = min(1, (share - threshold) / (1 - threshold))
                let delay = Duration.seconds(Double(maximumDelay.components.seconds) * fraction)
                context.logger.debug(
                    "Slowing down before the rate limit", metadata: ["usage": "\(usage.highestPercentage)%"])
                try await sleep(delay)
            }
        }
        do {
            let response = try await next(request)
            var headers: [String: String] = [:]
            for field in response.head.headerFields { headers[field.name.canonicalName.lowercased()] = field.value }
            tracker.record(headers, now: now())
            return response
        } catch let error as MendError {
            if let headers = error.response?.headers { tracker.record(headers, now: now()) }
            throw error
        }
    }
}
