import Logging
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
    package static func bootstrap(serviceName: String, environment: [String: String]) throws -> TelemetryExport? {
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
            return try makeExport(serviceName: serviceName)
        #else
            throw NotBuilt()
        #endif
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
        private static func makeExport(serviceName: String) throws -> TelemetryExport {
            var configuration = OTel.Configuration.default
            configuration.serviceName = serviceName
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
