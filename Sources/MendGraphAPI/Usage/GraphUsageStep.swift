import Foundation
import HTTPTypes
import Logging
public import MendCore
public import MendHTTP

/// Keeps the latest usage headers of every response (errors included), and optionally slows requests down as the
/// usage approaches 100 %, so that the app never calls into a throttle.
final class UsageTracker: Sendable {
    private let latest = Locked<GraphUsage?>(nil)
    /// Whether the client's error decoder records the usage of error responses (it read the headers already).
    private let decoderRecordsErrors = Locked(false)

    var usage: GraphUsage? { latest.withLock { $0 } }

    func record(_ usage: GraphUsage?) {
        guard let usage else { return }
        latest.withLock { $0 = usage }
    }

    /// The client's ``GraphErrorDecoder`` records the usage of error responses from now on.
    func errorsAreRecordedByTheDecoder() { decoderRecordsErrors.withLock { $0 = true } }

    var recordsErrorsItself: Bool { !decoderRecordsErrors.withLock { $0 } }
}

/// The usage step (Graph): keeps the latest usage headers of every response, errors included, and, above
/// `slowDownAbove` of any counter, delays requests so that the app never calls into a throttle.
package struct GraphUsageStep: ClientMiddleware {
    let tracker = UsageTracker()
    let slowDownAbove: Double?
    let maximumDelay: Duration

    /// Creates the step. It waits and reads the time on the client's clock.
    ///
    /// - Parameters:
    ///   - slowDownAbove: Above this share (0…1) of any usage counter, requests are delayed; `nil` never delays.
    ///   - maximumDelay: The longest delay (at 100 % usage).
    package init(slowDownAbove: Double? = nil, maximumDelay: Duration = .seconds(5)) {
        self.slowDownAbove = slowDownAbove
        self.maximumDelay = maximumDelay
    }

    /// The latest usage the provider reported.
    package var latestUsage: GraphUsage? { tracker.usage }

    /// Delays when close to the limit, sends, and records the usage headers.
    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        let clock = context.clock
        if let threshold = slowDownAbove, let usage = tracker.usage {
            let share = usage.highestPercentage / 100
            if share > threshold, threshold < 1 {
                let fraction = min(1, (share - threshold) / (1 - threshold))
                let delay = Duration.seconds(Double(maximumDelay.components.seconds) * fraction)
                context.logger.debug(
                    "Slowing down before the rate limit", metadata: ["usage": "\(usage.highestPercentage)%"])
                try await clock.sleep(delay)
            }
        }
        do {
            let response = try await next(request, context: context)
            tracker.record(GraphUsage(fields: response.head.headerFields, now: clock.now()))
            return response
        } catch let error as MendError {
            // A Graph client's decoder read the usage of the error response already; another decoder did not.
            if tracker.recordsErrorsItself, let headers = error.response?.headers {
                tracker.record(GraphUsage(headers: headers, now: clock.now()))
            }
            throw error
        }
    }
}
