import ArgumentParser
import Foundation
import Logging
import MendHTTP
import MendServer
import MendTelemetry
import MendTelemetryExport
import Metrics

/// `mend-server serve` (also `mend-server` alone): serves until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve until SIGTERM or SIGINT, then drain and stop (the default).",
        discussion: """
            Logs "mend-server ready" with the host and port once it accepts connections (MEND_PORT=0 picks a free \
            port; --host and --port win over MEND_HOST and MEND_PORT). On SIGTERM or SIGINT it drains: \
            /health/ready answers 503 at once while everything else is still served for MEND_DRAIN_DELAY (5s), then \
            the listener closes, the requests in flight finish, background work stops and the database closes; a \
            second signal stops it at once. MEND_LOG_LEVEL sets the log level (info).
            """)

    /// Whatever follows `mend-server` that is neither a subcommand nor an option: a usage error (64), said plainly
    /// rather than as an argument of `serve`.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var unrecognized: [String] = []

    func validate() throws {
        if let first = unrecognized.first {
            throw ValidationError("unknown command or argument '\(first)'; see mend-server --help")
        }
    }

    @OptionGroup var listening: ListeningOptions

    func run() async throws {
        let configuration = try ServerCommandSupport.loadConfiguration(listening)
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "mend.server")
        logger.logLevel = level
        do {
            // Traces and metrics over OTLP when the OTEL_* variables ask; the provider clients are observed either
            // way (their metrics go to GET /metrics too).
            // A telemetry setting that cannot be honoured (OTEL_EXPORTER_OTLP_PROTOCOL=grpc) never stops the login
            // backend: it serves without exporting, and says so.
            let export: TelemetryExport?
            do {
                export = try TelemetryExport.bootstrap(
                    serviceName: "mend-server", environment: ProcessInfo.processInfo.environment, diagnostics: logger)
            } catch {
                logger.warning("not exporting telemetry", metadata: ["error": .string("\(error)")])
                export = nil
            }
            let metrics = ServerMetrics(exportingTo: export?.metricsFactory)
            MetricsSystem.bootstrap(metrics.metricsFactory)
            APIClient.bootstrapObserver(TelemetryObserver())
            let logger = logger
            let serve: @Sendable () async throws -> Void = {
                let backend = try await LoginBackend.open(
                    configuration: configuration, logger: logger, metrics: metrics)
                try await backend.runUntilSignalled { server in
                    logger.notice(
                        "mend-server ready",
                        metadata: [
                            "host": .string(configuration.listening.host),
                            "port": .stringConvertible(server.baseURL.port ?? 0),
                            "otlp": .stringConvertible(export != nil),
                        ])
                }
            }
            if let export {
                // The stop stays within its bound whatever the collector does: the last flush gets at most 1 s.
                try await export.run(unexported: { logger.warning("\($0)") }, serve)
            } else {
                try await serve()
            }
        } catch {
            ServerCommandSupport.complain("\(error)")
            throw ServerCommandSupport.serverFailure
        }
    }
}
