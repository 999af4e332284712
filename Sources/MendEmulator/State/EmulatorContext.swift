import Foundation
import HTTPTypes
import MendCore
import MendHTTP

/// What every concern of the emulator's state shares: the configuration and its apps, the seeded random numbers,
/// the clock and the event counter.
///
/// ``EmulatorState`` holds the one context and lends it (`inout`) to the concern that draws a number, reads the time
/// or counts an event. Every concern draws from the same seeded sequence, in the order the requests come, so the same
/// seed and the same requests give the same ids and tokens, and a reset emulator (a fresh context from the same
/// seed) issues the same tokens again.
struct EmulatorContext: Sendable {
    let configuration: EmulatorConfiguration
    /// The registered apps, by id (the first of each id in the configuration).
    let apps: [String: EmulatedApp]
    var random: SeededGenerator
    var clock: EmulatorClock
    /// Increases with every token issue and state change (orders them even when the clock stands still).
    var generation = 0

    init(configuration: EmulatorConfiguration, clock source: PipelineClock) {
        self.configuration = configuration
        self.random = SeededGenerator(seed: configuration.seed)
        let start =
            configuration.startTime ?? Date(timeIntervalSince1970: source.now().timeIntervalSince1970.rounded(.down))
        self.clock = EmulatorClock(start: start, mode: configuration.clockMode, source: source)
        self.apps = Dictionary(configuration.apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var now: Date { clock.now }
    var graphVersion: String { configuration.graphVersion }

    mutating func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// A fresh trace id (`fbtrace_id`).
    mutating func traceID() -> String {
        "A" + random.alphanumeric(22)
    }

    /// Renders an outcome with the Graph headers and a fresh trace id.
    mutating func render(_ outcome: Result<JSONValue, GraphFailure>, headers: HTTPFields = [:]) -> EmulatorResponse {
        let trace = traceID()
        switch outcome {
        case .success(let value):
            var response = EmulatorResponse.json(value, headers: headers)
            GraphHeaders.apply(to: &response.headers, traceID: trace, graphVersion: graphVersion)
            return response
        case .failure(let failure):
            var response = failure.response(traceID: trace, graphVersion: graphVersion)
            for field in headers where response.headers[field.name] == nil { response.headers.append(field) }
            return response
        }
    }

    /// The issuer as a client at `baseURL` sees it: ``EmulatorConfiguration/issuer``, or `baseURL` itself for
    /// ``EmulatorConfiguration/baseURLIssuer``.
    func issuer(baseURL: String) -> String {
        configuration.issuer == EmulatorConfiguration.baseURLIssuer ? baseURL : configuration.issuer
    }
}
