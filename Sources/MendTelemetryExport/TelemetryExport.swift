import Foundation
package import Logging
package import MendCore
import MendHTTP
import MendTelemetry
package import Metrics
import ServiceLifecycle
import Tracing

#if MEND_OTLP
    import OTel
#endif

/// Exports traces and metrics over OTLP/HTTP (swift-otel) when the standard `OTEL_*` variables ask for it:
/// `mend` and `mend-server` call ``bootstrap(serviceName:environment:)`` once at startup.
///
/// Nothing is exported unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or its `_TRACES_` or `_METRICS_` form) is set, or
/// `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` names `otlp` or `console`; `OTEL_SDK_DISABLED=true` turns it all
/// off. swift-otel reads the rest: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`(`_ARG`),
/// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_PROPAGATORS`….
/// Only `http/protobuf` is built in (swift-otel's gRPC trait is off).
package final class TelemetryExport: Sendable {
    private let group: ServiceGroup
    /// How long the last flush may take when the work is done (``flushBound(in:)``).
    package let flushBound: Duration
    /// Where the exports go, for the line that says what was not exported (no user, password or query).
    package let destination: String

    private init(group: ServiceGroup, metricsFactory: any MetricsFactory, flushBound: Duration, destination: String) {
        self.group = group
        self.metricsFactory = metricsFactory
        self.flushBound = flushBound
        self.destination = destination
    }

    /// How long the final flush may hold the process after its work: 1 s, or what `OTEL_EXPORTER_OTLP_TIMEOUT`
    /// (or its `_TRACES_` / `_METRICS_` form) or `OTEL_BSP_EXPORT_TIMEOUT` says (milliseconds; the largest, when
    /// several are set). Telemetry never holds the work it observes: a collector that is down or never answers
    /// costs this, not the exporter's own 10 s timeout and its retries.
    package static func flushBound(in environment: [String: String]) -> Duration {
        let explicit = [
            "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
            "OTEL_BSP_EXPORT_TIMEOUT",
        ].compactMap { environment[$0].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.filter { $0 >= 0 }
        return explicit.max().map { .milliseconds($0) } ?? .seconds(1)
    }

    /// The collector's address as `environment` gives it (scheme, host, port and path only), or swift-otel's
    /// default.
    static func destination(in environment: [String: String]) -> String {
        let endpoint = [
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let endpoint, var components = URLComponents(string: endpoint), components.host != nil else {
            return endpoint == nil ? "http://localhost:4318" : "the configured collector"
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "the configured collector"
    }

    /// The buckets OpenTelemetry's HTTP conventions advise for request durations, in seconds.
    package static let durationBuckets: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]

    /// Whether `environment` asks for an export.
    package static func isRequested(in environment: [String: String]) -> Bool {
        let (traces, metrics) = exporters(in: environment)
        return !traces.isEmpty || !metrics.isEmpty
    }

    /// Where each signal goes: `otlp`, `console`, or both, as `OTEL_TRACES_EXPORTER` and `OTEL_METRICS_EXPORTER`
    /// name them (comma-separated, `none` for nothing); a signal whose variable is unset goes over OTLP when an
    /// endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the signal's own), nowhere otherwise. Nothing at all with
    /// `OTEL_SDK_DISABLED=true`.
    package static func exporters(in environment: [String: String]) -> (traces: Set<String>, metrics: Set<String>) {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return ([], []) }
        func selection(_ key: String, endpoint: String) -> Set<String> {
            guard let value = environment[key] else {
                let endpoints = ["OTEL_EXPORTER_OTLP_ENDPOINT", endpoint]
                return endpoints.contains { !(environment[$0] ?? "").isEmpty } ? ["otlp"] : []
            }
            let names = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return Set(names.filter { $0 == "otlp" || $0 == "console" })
        }
        return (
            selection("OTEL_TRACES_EXPORTER", endpoint: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            selection("OTEL_METRICS_EXPORTER", endpoint: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        )
    }

    /// The exporting metrics factory (OTLP, console, or both): bootstrap `MetricsSystem` with it, alone or beside the
    /// process's own.
    package let metricsFactory: any MetricsFactory

    /// Bootstraps the tracer (`InstrumentationSystem`) and returns the exporter, whose ``metricsFactory`` the caller
    /// bootstraps `MetricsSystem` with (beside its own factory, if it has one); `nil` when `environment` asks for no
    /// export. Call it once, at startup.
    ///
    /// - Parameters:
    ///   - serviceName: `service.name` unless `OTEL_SERVICE_NAME` says otherwise.
    ///   - environment: The process environment.
    ///   - diagnostics: Where swift-otel's own lines go (its level is `OTEL_LOG_LEVEL`'s, else `diagnostics`'s):
    ///     through ``DiagnosticsRedaction``, so that no line carries an `OTEL_EXPORTER_OTLP_HEADERS` value or any
    ///     other secret. By default standard error at `warning`: `mend` prints none of swift-otel's `info` lines.
    package static func bootstrap(
        serviceName: String, environment: [String: String], diagnostics: Logger? = nil
    ) throws -> TelemetryExport? {
        let (traces, metrics) = exporters(in: environment)
        guard !traces.isEmpty || !metrics.isEmpty else { return nil }
        let redactor = DiagnosticsRedaction.redactor(for: environment)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        var factories: [any MetricsFactory] = []
        var tracer: (any Tracer)?
        if traces.contains("otlp") || metrics.contains("otlp") {
            // swift-otel stops the process (a fatal error, not a thrown one) on a protocol whose trait is not built:
            // ask first.
            for key in [
                "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
            ] {
                if let value = environment[key], value != "http/protobuf" {
                    throw UnsupportedProtocol(key: key, value: value)
                }
            }
            #if MEND_OTLP
                do {
                    let otlp = try makeOTLP(
                        serviceName: serviceName, diagnostics: diagnostics ?? Self.standardErrorDiagnostics,
                        redactor: redactor, traces: traces.contains("otlp"), metrics: metrics.contains("otlp"),
                        headers: takeHeaders(from: environment))
                    tracer = otlp.tracer
                    factories += otlp.factory.map { [$0] } ?? []
                    services += otlp.services
                } catch {
                    // swift-otel's configuration errors may quote the setting they could not read.
                    throw ExportFailure(description: redactor.redact(text: "\(error)"))
                }
            #else
                throw NotBuilt()
            #endif
        }
        if traces.contains("console"), tracer == nil {
            tracer = ConsoleExport.Tracer(redactor: redactor)
        }
        if metrics.contains("console") {
            let console = ConsoleExport.Metrics(redactor: redactor)
            factories.append(console)
            let interval = environment["OTEL_METRIC_EXPORT_INTERVAL"].flatMap { Int($0) }.map {
                Duration.milliseconds($0)
            }
            services.append(
                .init(service: ConsoleExport.Metrics.Service(metrics: console, interval: interval ?? .seconds(60))))
        }
        if let tracer { InstrumentationSystem.bootstrap(tracer) }
        let logger = Logger(label: "mend.telemetry", factory: { _ in SwiftLogNoOpLogHandler() })
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        let factory: any MetricsFactory =
            factories.count == 1 ? factories[0] : MultiplexMetricsHandler(factories: factories)
        return TelemetryExport(
            group: group, metricsFactory: factory, flushBound: flushBound(in: environment),
            destination: destination(in: environment))
    }

    /// swift-otel's lines on standard error, warnings and worse unless `OTEL_LOG_LEVEL` asks for more.
    static var standardErrorDiagnostics: Logger {
        var logger = Logger(label: "swift-otel", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        return logger
    }

    /// The names of the header variables, generic first.
    static let headerVariables = (
        generic: "OTEL_EXPORTER_OTLP_HEADERS", traces: "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        metrics: "OTEL_EXPORTER_OTLP_METRICS_HEADERS"
    )

    /// The headers of each signal as the OTLP exporter specification reads `OTEL_EXPORTER_OTLP_HEADERS` (and its
    /// `_TRACES_` / `_METRICS_` forms, which replace it for their signal): the W3C Baggage format, its keys and values
    /// percent-decoded (`authorization=Basic%20…` is `Basic …`). swift-otel 1.6 reads the variables without decoding,
    /// so they are taken out of the process environment here, before swift-otel reads it, and given to it decoded.
    static func takeHeaders(
        from environment: [String: String]
    ) -> (traces: [(String, String)], metrics: [(String, String)]) {
        let names = headerVariables
        let generic = environment[names.generic].map(decodeHeaders) ?? []
        let headers = (
            traces: environment[names.traces].map(decodeHeaders) ?? generic,
            metrics: environment[names.metrics].map(decodeHeaders) ?? generic
        )
        // The exporter selections too: Mend reads them (``exporters(in:)``), and swift-otel refuses `console`.
        for name in [
            names.generic, names.traces, names.metrics, "OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_TRACES_EXPORTER",
            "OTEL_METRICS_EXPORTER",
        ] {
            unsetenv(name)
        }
        return headers
    }

    /// A `key=value,key=value` list, each key and value trimmed and percent-decoded (a value that is not valid
    /// percent-encoding is kept as written); an entry without `=` or with an empty key is skipped.
    package static func decodeHeaders(_ list: String) -> [(String, String)] {
        list.split(separator: ",").compactMap { item in
            guard let equals = item.firstIndex(of: "=") else { return nil }
            let key = item[..<equals].trimmingCharacters(in: .whitespaces)
            let value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { return nil }
            return (key.removingPercentEncoding ?? key, value.removingPercentEncoding ?? value)
        }
    }

    /// The exporter could not be made (swift-otel's error, redacted).
    struct ExportFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// A protocol other than `http/protobuf`, the only one built in.
    struct UnsupportedProtocol: Error, CustomStringConvertible {
        var key: String
        var value: String
        var description: String { "\(key)=\(value) is not supported: only http/protobuf is built in" }
    }

    /// This build has no OTLP exporter (it was built with `MEND_WITHOUT_OTLP`).
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "this build has no OTLP exporter (built with MEND_WITHOUT_OTLP)" }
    }

    #if MEND_OTLP
        /// swift-otel's OTLP backends for the signals asked for: the tracer, the metrics factory and their services.
        private static func makeOTLP(
            serviceName: String, diagnostics: Logger, redactor: Redactor, traces: Bool, metrics: Bool,
            headers: (traces: [(String, String)], metrics: [(String, String)])
        ) throws -> (
            tracer: (any Tracer)?, factory: (any MetricsFactory)?,
            services: [ServiceGroupConfiguration.ServiceConfiguration]
        ) {
            var configuration = OTel.Configuration.default
            configuration.serviceName = serviceName
            configuration.traces.otlpExporter.headers = headers.traces
            configuration.metrics.otlpExporter.headers = headers.metrics
            configuration.diagnosticLogger = .custom(
                DiagnosticsRedaction.logger(wrapping: diagnostics, redactor: redactor))
            configuration.diagnosticLogLevel =
                switch diagnostics.logLevel {
                case .trace: .trace
                case .debug: .debug
                case .info, .notice: .info
                case .warning: .warning
                case .error, .critical: .error
                }
            configuration.logs.enabled = false
            configuration.traces.otlpExporter.protocol = .httpProtobuf
            configuration.metrics.otlpExporter.protocol = .httpProtobuf
            for name in [
                TelemetryObserver.MetricName.requestDuration, TelemetryObserver.MetricName.waitDuration,
                "http.server.request.duration",
            ] {
                configuration.metrics.valueHistogramBuckets[name] = durationBuckets
            }
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
            var tracer: (any Tracer)?
            var factory: (any MetricsFactory)?
            if traces {
                let (made, service) = try OTel.makeTracingBackend(configuration: configuration)
                tracer = made
                services.append(.init(service: service))
            }
            if metrics {
                let (made, service) = try OTel.makeMetricsBackend(configuration: configuration)
                factory = made
                services.append(.init(service: service))
            }
            return (tracer, factory, services)
        }
    #endif

    /// Runs `body` while the exporters run, then flushes what is left (the last spans and a last metrics export)
    /// for at most ``flushBound`` before returning `body`'s result. When the flush does not finish in time (a
    /// collector that is down, or accepts the connection and never answers), the exporters are cancelled and
    /// `unexported` gets one line saying what was not exported; the caller's result is the same either way.
    package func run<T: Sendable>(
        unexported: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) },
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        // Unstructured, so that nothing waits for it past the bound: a task group would wait for its child.
        let group = self.group
        let exporting = Task { _ = try? await group.run() }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        if await !Self.finishes(exporting, within: flushBound) {
            exporting.cancel()
            unexported(
                "telemetry: the last spans and metrics were not exported: \(destination) did not take them within "
                    + "\(Self.text(flushBound)) (OTEL_EXPORTER_OTLP_TIMEOUT sets how long to wait)")
        }
        return try result.get()
    }

    /// Whether `task` finishes within `bound`; returns at the first of the two, never waiting for the other.
    private static func finishes(_ task: Task<Void, Never>, within bound: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resumed = Locked(false)
            let resume: @Sendable (Bool) -> Void = { finished in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: finished) }
            }
            Task {
                await task.value
                resume(true)
            }
            Task {
                try? await Task.sleep(for: bound)
                resume(false)
            }
        }
    }

    private static func text(_ duration: Duration) -> String {
        let milliseconds = Int(
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

/// swift-otel's diagnostic lines with their secrets removed: it logs the value of every `OTEL_*` variable it applies
/// (`environment_value`, `previous_value`, `new_value`) — `OTEL_EXPORTER_OTLP_HEADERS` holds a collector's
/// credentials. A header list keeps its names only (`authorization=<redacted>,x-team=<redacted>`); every message and
/// other value goes through ``Redactor`` (MendCore's one secret vocabulary).
package enum DiagnosticsRedaction {
    /// `logger`, its handler wrapped: every line through `redactor` (and header lists by name).
    package static func logger(wrapping logger: Logger, redactor: Redactor = .standard) -> Logger {
        var wrapped = Logger(label: logger.label, factory: { _ in Handler(base: logger.handler, redactor: redactor) })
        wrapped.logLevel = logger.logLevel
        return wrapped
    }

    /// ``Redactor`` with the values of every `OTEL_*_HEADERS` variable of `environment` registered (as written and
    /// percent-decoded), so that a line that quotes one anywhere loses it.
    package static func redactor(for environment: [String: String]) -> Redactor {
        var values: [String] = []
        for (key, list) in environment where key.hasPrefix("OTEL_") && key.hasSuffix("_HEADERS") {
            for item in list.split(separator: ",") {
                guard let equals = item.firstIndex(of: "=") else { continue }
                let value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                values.append(value)
                if let decoded = value.removingPercentEncoding { values.append(decoded) }
            }
        }
        return Redactor.standard.adding(secrets: values)
    }

    /// A `name=value,name=value` list (`OTEL_EXPORTER_OTLP_HEADERS`), its values replaced.
    package static func redact(headerList: String) -> String {
        headerList.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "=") else { return item.isEmpty ? "" : "<redacted>" }
            return item[..<equals] + "=<redacted>"
        }.joined(separator: ",")
    }

    /// The metadata of one line: the values of a header variable as a header list, every value redacted.
    package static func redact(_ metadata: Logger.Metadata, with redactor: Redactor = .standard) -> Logger.Metadata {
        let key = metadata["environment_key"].map { "\($0)" } ?? ""
        let holdsHeaders = key.uppercased().hasSuffix("_HEADERS")
        var redacted: Logger.Metadata = [:]
        for (name, value) in metadata {
            let text = "\(value)"
            if holdsHeaders, ["environment_value", "previous_value", "new_value"].contains(name) {
                redacted[name] = .string(redact(headerList: text))
            } else {
                redacted[name] = .string(redactor.redact(text: text))
            }
        }
        return redacted
    }

    struct Handler: LogHandler {
        var base: any LogHandler
        let redactor: Redactor
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        var logLevel: Logger.Level {
            get { base.logLevel }
            set { base.logLevel = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var event = event
            var merged = metadataProvider?.get() ?? [:]
            merged.merge(metadata) { $1 }
            merged.merge(event.metadata ?? [:]) { $1 }
            event.metadata = DiagnosticsRedaction.redact(merged, with: redactor)
            event.message = "\(redactor.redact(text: "\(event.message)"))"
            base.log(event: event)
        }
    }
}
