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

    private init(group: ServiceGroup, metricsFactory: any MetricsFactory) {
        self.group = group
        self.metricsFactory = metricsFactory
    }

    /// The buckets OpenTelemetry's HTTP conventions advise for request durations, in seconds.
    package static let durationBuckets: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
    ]

    /// Whether `environment` asks for an export.
    package static func isRequested(in environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        let endpoints = [
            "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ]
        if endpoints.contains(where: { !(environment[$0] ?? "").isEmpty }) { return true }
        return ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"].contains { key in
            guard let value = environment[key]?.lowercased() else { return false }
            return value.contains("otlp") || value.contains("console")
        }
    }

    /// The OTLP metrics factory: bootstrap `MetricsSystem` with it, alone or beside the process's own.
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
        guard isRequested(in: environment) else { return nil }
        // swift-otel stops the process (a fatal error, not a thrown one) on a protocol whose trait is not built: ask
        // first.
        for key in [
            "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
        ] {
            if let value = environment[key], value != "http/protobuf" {
                throw UnsupportedProtocol(key: key, value: value)
            }
        }
        #if MEND_OTLP
            let redactor = DiagnosticsRedaction.redactor(for: environment)
            do {
                return try makeExport(
                    serviceName: serviceName, diagnostics: diagnostics ?? Self.standardErrorDiagnostics,
                    redactor: redactor)
            } catch {
                // swift-otel's configuration errors may quote the setting they could not read.
                throw ExportFailure(description: redactor.redact(text: "\(error)"))
            }
        #else
            throw NotBuilt()
        #endif
    }

    /// swift-otel's lines on standard error, warnings and worse unless `OTEL_LOG_LEVEL` asks for more.
    static var standardErrorDiagnostics: Logger {
        var logger = Logger(label: "swift-otel", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        return logger
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
        private static func makeExport(
            serviceName: String, diagnostics: Logger, redactor: Redactor
        ) throws -> TelemetryExport {
            var configuration = OTel.Configuration.default
            configuration.serviceName = serviceName
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
            let (tracer, traceService) = try OTel.makeTracingBackend(configuration: configuration)
            let (factory, metricsService) = try OTel.makeMetricsBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(tracer)
            let logger = Logger(label: "mend.telemetry", factory: { _ in SwiftLogNoOpLogHandler() })
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [.init(service: traceService), .init(service: metricsService)], logger: logger))
            return TelemetryExport(group: group, metricsFactory: factory)
        }
    #endif

    /// Runs `body` while the exporters run, then flushes what is left (the last spans and a last metrics export)
    /// before returning `body`'s result.
    package func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                try await self.group.run()
                return nil
            }
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            await group.triggerGracefulShutdown()
            while let next = try? await tasks.next() { _ = next }
            return try result.get()
        }
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
