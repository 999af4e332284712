package import CoreMetrics
import Foundation
package import InMemoryTracing
package import MendCore
import ServiceLifecycle
package import Tracing

/// `OTEL_TRACES_EXPORTER=console` and `OTEL_METRICS_EXPORTER=console`, as the OpenTelemetry SDKs have them: each span,
/// as it ends, and each metric point, at every export interval and when the process stops, as one line on standard
/// error, through ``Redactor`` like every other line Mend writes. For looking at what Mend would export without a
/// collector (swift-otel 1.6 has no console exporter: it refused with "Not implemented").
///
/// ```
/// span GET /v1/session kind=server trace=4bf92f3577b34da6a3ce929d0e0e4736 span=00f067aa0ba902b7 parent=- 1.84 ms status=unset http.request.method=GET http.response.status_code=401 …
/// metric http.server.request.duration histogram count=2 sum=0.0031 min=0.0012 max=0.0019 http.request.method=GET …
/// ```
package enum ConsoleExport {
    /// Where the lines go: standard error, one write per line.
    package static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A tracer that writes each ended span as one line; W3C `traceparent` in and out, so that a trace continues
    /// across processes as it would with OTLP.
    package struct Tracer: Tracing.Tracer {
        package typealias Span = InMemorySpan

        let write: @Sendable (String) -> Void
        let redactor: Redactor

        /// A tracer writing to `write`, each line through `redactor`.
        package init(redactor: Redactor = .standard, write: @escaping @Sendable (String) -> Void = standardError) {
            self.write = write
            self.redactor = redactor
        }

        package func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> InMemorySpan {
            let parent = context()
            let spanContext = InMemorySpanContext(
                traceID: parent.inMemorySpanContext?.traceID ?? Self.hex(bytes: 16), spanID: Self.hex(bytes: 8),
                parentSpanID: parent.inMemorySpanContext?.spanID)
            let write = self.write
            let redactor = self.redactor
            return InMemorySpan(
                operationName: operationName, context: parent, spanContext: spanContext, kind: kind,
                startInstant: instant()
            ) { finished in write(redactor.redact(text: Self.line(finished))) }
        }

        package func forceFlush() {}

        package func inject<Carrier, Inject: Injector>(
            _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
        ) where Inject.Carrier == Carrier {
            guard let span = context.inMemorySpanContext else { return }
            injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
        }

        package func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
        ) where Extract.Carrier == Carrier {
            guard let value = extractor.extract(key: "traceparent", from: carrier) else { return }
            let parts = value.split(separator: "-")
            guard parts.count == 4, parts[1].count == 32, parts[2].count == 16,
                parts[1].allSatisfy(\.isHexDigit), parts[2].allSatisfy(\.isHexDigit)
            else { return }
            context.inMemorySpanContext = InMemorySpanContext(
                traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
        }

        /// One ended span as a line: name, kind, ids, duration, status, then its attributes sorted by name.
        static func line(_ span: FinishedInMemorySpan) -> String {
            let nanoseconds = span.endInstant.nanosecondsSinceEpoch &- span.startInstant.nanosecondsSinceEpoch
            let status =
                switch span.status?.code {
                case .error?: "error"
                case .ok?: "ok"
                case nil: "unset"
                }
            var attributes: [String] = []
            span.attributes.forEach { name, value in attributes.append("\(name)=\(ConsoleExport.text(value))") }
            let events = span.events.map { "event=\($0.name)" }
            return
                ([
                    "span \(span.operationName)", "kind=\(span.kind)", "trace=\(span.traceID)", "span=\(span.spanID)",
                    "parent=\(span.parentSpanID ?? "-")", String(format: "%.2f ms", Double(nanoseconds) / 1e6),
                    "status=\(status)",
                ] + attributes.sorted() + events).joined(separator: " ")
        }

        static func hex(bytes count: Int) -> String {
            var generator = SystemRandomNumberGenerator()
            return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
                .joined()
        }
    }

    static func text(_ value: SpanAttribute) -> String {
        switch value {
        case .string(let text): text
        case .int32(let number): String(number)
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        default: "\(value)"
        }
    }

    /// A metrics factory that keeps each metric point (its name and dimensions) in memory and writes them all as
    /// lines when asked (``write()``): counters as sums, recorders and timers as histograms (count, sum, min, max),
    /// meters as their last value.
    package final class Metrics: MetricsFactory, Sendable {
        let output: @Sendable (String) -> Void
        let redactor: Redactor
        private let points = Locked<[String: Point]>([:])

        /// A factory writing to `output`, each line through `redactor`.
        package init(redactor: Redactor = .standard, output: @escaping @Sendable (String) -> Void = standardError) {
            self.output = output
            self.redactor = redactor
        }

        /// One metric point: its kind and what it has measured.
        final class Point: Sendable {
            let name: String
            let kind: String
            let dimensions: [(String, String)]
            let values = Locked((count: 0, sum: 0.0, minimum: Double.infinity, maximum: -Double.infinity, last: 0.0))

            init(name: String, kind: String, dimensions: [(String, String)]) {
                self.name = name
                self.kind = kind
                self.dimensions = dimensions
            }

            func add(_ value: Double) {
                values.withLock { values in
                    values.count += 1
                    values.sum += value
                    values.minimum = min(values.minimum, value)
                    values.maximum = max(values.maximum, value)
                    values.last = value
                }
            }

            func set(_ value: Double) { values.withLock { $0.last = value } }

            func adjust(by amount: Double) { values.withLock { $0.last += amount } }

            func reset() { values.withLock { $0 = (0, 0, .infinity, -.infinity, 0) } }

            var line: String {
                let current = values.withLock { $0 }
                let measured =
                    switch kind {
                    case "sum": "value=\(ConsoleExport.number(current.sum))"
                    case "gauge": "value=\(ConsoleExport.number(current.last))"
                    default:
                        current.count == 0
                            ? "count=0"
                            : "count=\(current.count) sum=\(ConsoleExport.number(current.sum)) "
                                + "min=\(ConsoleExport.number(current.minimum)) "
                                + "max=\(ConsoleExport.number(current.maximum))"
                    }
                let labels = dimensions.filter { $0.0 != "unit" }.map { "\($0.0)=\($0.1)" }.sorted()
                return (["metric \(name)", kind, measured] + labels).joined(separator: " ")
            }
        }

        private func point(_ label: String, _ kind: String, _ dimensions: [(String, String)]) -> Point {
            let key = ([label, kind] + dimensions.map { "\($0.0)=\($0.1)" }.sorted()).joined(separator: "\u{1F}")
            return points.withLock { points in
                if let found = points[key] { return found }
                let made = Point(name: label, kind: kind, dimensions: dimensions)
                points[key] = made
                return made
            }
        }

        /// Writes every metric point as a line, sorted by name.
        package func write() {
            let lines = points.withLock { $0.values.map(\.line) }.sorted()
            for line in lines { output(redactor.redact(text: line)) }
        }

        package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
            Handler(point: point(label, "sum", dimensions))
        }

        package func makeFloatingPointCounter(
            label: String, dimensions: [(String, String)]
        ) -> any FloatingPointCounterHandler {
            Handler(point: point(label, "sum", dimensions))
        }

        package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
            Handler(point: point(label, "gauge", dimensions))
        }

        package func makeRecorder(
            label: String, dimensions: [(String, String)], aggregate: Bool
        ) -> any RecorderHandler {
            Handler(point: point(label, aggregate ? "histogram" : "gauge", dimensions))
        }

        package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
            Handler(point: point(label, "histogram", dimensions))
        }

        package func destroyCounter(_ handler: any CounterHandler) {}
        package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
        package func destroyMeter(_ handler: any MeterHandler) {}
        package func destroyRecorder(_ handler: any RecorderHandler) {}
        package func destroyTimer(_ handler: any TimerHandler) {}

        /// Every handler kind over one point.
        final class Handler: CounterHandler, FloatingPointCounterHandler, MeterHandler, RecorderHandler, TimerHandler,
            Sendable
        {
            let point: Point

            init(point: Point) { self.point = point }

            /// A counter adds; a meter (a gauge) moves by `amount`.
            func increment(by amount: Int64) { increment(by: Double(amount)) }
            func increment(by amount: Double) {
                if point.kind == "gauge" { point.adjust(by: amount) } else { point.add(amount) }
            }
            func decrement(by amount: Double) { point.adjust(by: -amount) }
            func reset() { point.reset() }
            func set(_ value: Int64) { point.set(Double(value)) }
            func set(_ value: Double) { point.set(value) }
            /// A histogram adds a sample; a gauge recorder sets its value.
            func record(_ value: Int64) { record(Double(value)) }
            func record(_ value: Double) {
                if point.kind == "gauge" { point.set(value) } else { point.add(value) }
            }
            func recordNanoseconds(_ duration: Int64) { point.add(Double(duration) / 1e9) }
        }

        /// Writes the points every `interval` until the graceful shutdown, then once more.
        struct Service: ServiceLifecycle.Service {
            let metrics: Metrics
            let interval: Duration

            func run() async throws {
                try? await cancelWhenGracefulShutdown {
                    while true {
                        try await Task.sleep(for: interval)
                        metrics.write()
                    }
                }
                metrics.write()
            }
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.6g", value)
    }
}
