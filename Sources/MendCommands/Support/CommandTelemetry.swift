import Foundation
import MendHTTP
import MendTelemetry
import MendTelemetryExport
import Metrics

/// `mend`'s telemetry: every client it makes is observed by MendTelemetry (what `--trace` draws), and traces and
/// metrics are exported over OTLP when the `OTEL_*` variables ask (``TelemetryExport``).
enum CommandTelemetry {
    /// Bootstraps the observer, and the exporter when asked for; returns the exporter to run.
    static func bootstrap() -> TelemetryExport? {
        let export: TelemetryExport?
        do {
            export = try TelemetryExport.bootstrap(
                serviceName: "mend", environment: ProcessInfo.processInfo.environment)
        } catch {
            StandardError.write("warning: not exporting telemetry: \(error)")
            export = nil
        }
        if let export { MetricsSystem.bootstrap(export.metricsFactory) }
        APIClient.bootstrapObserver(TelemetryObserver())
        return export
    }
}
