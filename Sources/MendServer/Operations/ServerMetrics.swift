public import CoreMetrics
import Foundation
import MendCore
import Metrics
import OTelSemanticConventions
public import Prometheus

/// The server's metrics (swift-metrics), kept in a Prometheus registry that `GET /metrics` renders.
///
/// Each server has its own registry unless one is passed (the `mend-server` executable passes the one it also
/// bootstraps the global metrics system with), so that several servers in one test process stay apart.
public final class ServerMetrics: Sendable {
    /// The registry the metrics are kept in.
    public let registry: PrometheusCollectorRegistry
    private let factory: any MetricsFactory
    /// The per-request metrics by their dimensions, made once (a registry lookup per request would cost more).
    private let requestMetrics = Locked<
        [RequestSeries: (counter: CoreMetrics.Counter, timer: CoreMetrics.Timer, duration: CoreMetrics.Recorder)]
    >([:])

    /// The dimensions of one request series: a key that is hashed, never formatted.
    private struct RequestSeries: Hashable {
        var method: String
        var status: Int
        var route: String?
    }
    /// `mend_session_checks_total` by source, made once (no lookup on the hot path).
    private let sessionChecksFromView: CoreMetrics.Counter
    private let sessionChecksFromDatabase: CoreMetrics.Counter
    private let tokenCacheHits: CoreMetrics.Counter
    private let tokenCacheMisses: CoreMetrics.Counter

    /// Creates metrics in `registry` (a new one by default), and in `exporter` too when given (the OTLP exporter's
    /// factory, when `mend-server` exports metrics).
    ///
    /// - Parameters:
    ///   - registry: The Prometheus registry `GET /metrics` renders.
    ///   - exporter: Another factory every metric also goes to.
    public init(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        exportingTo exporter: (any MetricsFactory)? = nil
    ) {
        self.registry = registry
        var prometheus = PrometheusMetricsFactory(registry: registry)
        prometheus.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .seconds(2.5), .seconds(5), .seconds(10),
        ]
        // The OpenTelemetry HTTP conventions' advised buckets (seconds) for the `http.*.request.duration` histograms.
        prometheus.defaultValueHistogramBuckets = [
            0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
        ]
        // A metric's `unit` dimension is for OTLP (swift-otel reads it); Prometheus names carry no unit label.
        prometheus.nameAndLabelSanitizer = { label, dimensions in (label, dimensions.filter { $0.0 != "unit" }) }
        let factory: any MetricsFactory =
            exporter.map { MultiplexMetricsHandler(factories: [prometheus, OTLPNaming(exporter: $0)]) } ?? prometheus
        self.factory = factory
        self.sessionChecksFromView = CoreMetrics.Counter(
            label: "mend_session_checks_total", dimensions: [("source", "view")], factory: factory)
        self.sessionChecksFromDatabase = CoreMetrics.Counter(
            label: "mend_session_checks_total", dimensions: [("source", "database")], factory: factory)
        self.tokenCacheHits = CoreMetrics.Counter(
            label: "mend_access_token_cache_total", dimensions: [("outcome", "hit")], factory: factory)
        self.tokenCacheMisses = CoreMetrics.Counter(
            label: "mend_access_token_cache_total", dimensions: [("outcome", "miss")], factory: factory)
    }

    /// The factory behind these metrics (the Prometheus registry's, and the exporter's when given), to bootstrap the
    /// global metrics system with (the executable does, so that libraries' metrics land in the same registry).
    public var metricsFactory: any MetricsFactory { factory }

    /// The Prometheus text exposition.
    public func render() -> String { registry.emitToString() }

    func request(method: String, route matched: String?, status: Int, duration: Duration) {
        let key = RequestSeries(method: method, status: status, route: matched)
        let metrics = requestMetrics.withLock { cache in
            if let found = cache[key] { return found }
            let route = matched ?? "unmatched"
            let dimensions = [("method", method), ("route", route), ("status", String(status))]
            // `http.route` only for a matched route (the conventions); Mend's own series say "unmatched".
            let routeDimension = matched.map { [(OTelAttribute.http.route, $0)] } ?? []
            let made = (
                counter: CoreMetrics.Counter(
                    label: "mend_http_requests_total", dimensions: dimensions, factory: factory),
                timer: Metrics.Timer(
                    label: "mend_http_request_duration_seconds", dimensions: [("route", route)], factory: factory),
                // OpenTelemetry's server convention, beside Mend's own names (which stay).
                duration: CoreMetrics.Recorder(
                    label: "http.server.request.duration",
                    dimensions: [(OTelAttribute.http.request.method, method)] + routeDimension + [
                        (OTelAttribute.http.response.statusCode, String(status)), (OTelAttribute.url.scheme, "http"),
                        ("unit", "s"),
                    ], aggregate: true, factory: factory)
            )
            if cache.count < 1000 { cache[key] = made }
            return made
        }
        metrics.counter.increment()
        metrics.timer.recordNanoseconds(duration.nanoseconds)
        metrics.duration.record(duration.seconds)
    }

    func login(outcome: String) {
        Counter(label: "mend_logins_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    func refresh(outcome: String) {
        Counter(label: "mend_refreshes_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    func revocation(outcome: String) {
        Counter(label: "mend_revocations_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    func rateLimited(scope: String) {
        Counter(label: "mend_rate_limited_total", dimensions: [("scope", scope)], factory: factory).increment()
    }

    func upstreamFailure(operation: String, error: String) {
        Counter(
            label: "mend_provider_failures_total", dimensions: [("operation", operation), ("error", error)],
            factory: factory
        ).increment()
    }

    func sessionsEnded(reason: String, count: Int) {
        guard count > 0 else { return }
        Counter(label: "mend_sessions_ended_total", dimensions: [("reason", reason)], factory: factory)
            .increment(by: count)
    }

    /// A bearer check answered by the revocation view or, while the view is not current, by the database.
    /// `mend_access_token_cache_total{outcome="hit"|"miss"}`: bearer checks answered from the verified-token cache,
    /// or verified (and cached).
    func tokenCache(hit: Bool) {
        (hit ? tokenCacheHits : tokenCacheMisses).increment()
    }

    /// `mend_audit_write_failures_total`: best-effort audit events that could not be written.
    /// `mend_admin_refused_total`: admin API requests with a token no configured digest matches.
    func adminRefused() {
        Counter(label: "mend_admin_refused_total", factory: factory).increment()
    }

    func auditWriteFailed() {
        Counter(label: "mend_audit_write_failures_total", factory: factory).increment()
    }

    func sessionCheck(fromDatabase: Bool) {
        (fromDatabase ? sessionChecksFromDatabase : sessionChecksFromView).increment()
    }

    func validityCheck(outcome: String) {
        Counter(label: "mend_provider_token_checks_total", dimensions: [("outcome", outcome)], factory: factory)
            .increment()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

/// Mend's own series as they go over OTLP: their dimensions in Mend's namespace (`route` is `mend.route`), as the
/// conventions ask of a name the registry does not define; the Prometheus names and labels of `GET /metrics` stay as
/// they are. A dimension that already has a namespace (`http.route`, `error.type`) is kept.
struct OTLPNaming: MetricsFactory {
    let exporter: any MetricsFactory

    static func dimensions(_ label: String, _ dimensions: [(String, String)]) -> [(String, String)] {
        guard label.hasPrefix("mend_") else { return dimensions }
        return dimensions.map { key, value in (key.contains(".") || key == "unit" ? key : "mend." + key, value) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        exporter.makeCounter(label: label, dimensions: Self.dimensions(label, dimensions))
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        exporter.makeFloatingPointCounter(label: label, dimensions: Self.dimensions(label, dimensions))
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        exporter.makeMeter(label: label, dimensions: Self.dimensions(label, dimensions))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        exporter.makeRecorder(label: label, dimensions: Self.dimensions(label, dimensions), aggregate: aggregate)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        exporter.makeTimer(label: label, dimensions: Self.dimensions(label, dimensions))
    }

    func destroyCounter(_ handler: any CounterHandler) { exporter.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        exporter.destroyFloatingPointCounter(handler)
    }
    func destroyMeter(_ handler: any MeterHandler) { exporter.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { exporter.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { exporter.destroyTimer(handler) }
}
