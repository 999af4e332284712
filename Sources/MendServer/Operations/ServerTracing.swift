import HTTPTypes
import Logging
import MendCore
import MendHTTP
import MendTelemetry
import OTelSemanticConventions
import Tracing

/// mend-server's side of a trace, to OpenTelemetry's HTTP server conventions: a server span per request that continues
/// the caller's trace (`traceparent`), and the trace id that log lines and error bodies carry.
///
/// Spans go to `InstrumentationSystem.tracer` (what `mend-server` bootstraps from the `OTEL_*` variables, or a
/// task's `withTracer`); with none, every call here is a no-op.
enum ServerTracing {

    /// The observer of the server's provider clients: the bootstrapped one, else MendTelemetry's (spans to the
    /// tracer in force, metrics to `MetricsSystem`), so that an embedding app's trace reaches the provider calls.
    static var providerObserver: any PipelineObserver {
        APIClient.bootstrappedObserver ?? TelemetryObserver()
    }

    /// Whether a tracer that records anything is in force (the bootstrapped one, or a task's).
    static var isTracing: Bool {
        !(InstrumentationSystem.tracer is NoOpTracer)
    }

    /// Runs `body` in an internal span named `name` when a tracer records (`body` gets the span), else as is.
    static func withSpan<T>(
        _ name: String, isolation: isolated (any Actor)? = #isolation, _ body: ((any Span)?) async throws -> T
    ) async throws -> T {
        guard isTracing else { return try await body(nil) }
        let span = InstrumentationSystem.tracer.startSpan(name, context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context) { try await body(span) }
        } catch let error as MendError {
            span.attributes[OTelAttribute.error.type] = error.errorType
            throw error
        }
    }

    /// The trace id of `context`, if it carries one: read back from the W3C `traceparent` the tracer would send (or
    /// from a tracer's own `…trace-id` field), so that it works with any tracer.
    static func traceID(of context: ServiceContext) -> String? {
        var fields: [String: String] = [:]
        InstrumentationSystem.tracer.inject(context, into: &fields, using: DictionaryInjector())
        if let parent = fields["traceparent"] {
            let parts = parent.split(separator: "-")
            return parts.count >= 2 ? String(parts[1]) : nil
        }
        return fields.first { $0.key.lowercased().hasSuffix("trace-id") }?.value
    }
}

/// Reads trace context from request header fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        guard let name = HTTPField.Name(key) else { return nil }
        return fields[name]
    }
}

/// Writes trace context into a dictionary.
struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
