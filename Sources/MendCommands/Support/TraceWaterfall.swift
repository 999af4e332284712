import Foundation
import InMemoryTracing
import Tracing

/// Each trace's spans as a waterfall in the terminal (`mend demo --trace`, `mend graph --trace`): one line per span,
/// indented by depth, with its attempt number, status or Mend error code, a bar where it ran in the trace, and its
/// duration; the pipeline's waits (backoff, `Retry-After`, rate-limit hold) as lines of their own. Sibling spans of
/// the same name in a row (a server's SQL statements) share one line, `×n`. Fits `width` columns (80 by default).
///
/// ```
/// trace 4 · GET /v25.0/me · 212.4ms
/// GET /v25.0/me                           |████████████████████████████|  212.4ms
///   GET /v25.0/me #1 503 http/503         |█                           |    3.1ms
///   wait backoff                          | ░░░░░░░░░░░░░░░░░░░░░░░░   |  200.0ms
///   GET /v25.0/me #2 200                  |                         ███|    6.8ms
/// ```
enum TraceWaterfall {
    /// One line: a span, a run of same-named siblings, or a wait.
    struct Line {
        var depth: Int
        var label: String
        var start: UInt64
        var end: UInt64
        var isWait = false
    }

    /// The waterfall of every trace in `spans`, oldest trace first.
    static func render(_ spans: [FinishedInMemorySpan], width: Int = 80) -> String {
        let traces = Dictionary(grouping: spans, by: \.traceID).values.sorted { first, second in
            (first.map(start).min() ?? 0) < (second.map(start).min() ?? 0)
        }
        return traces.map { render(trace: $0, width: width) }.joined(separator: "\n")
    }

    static func start(_ span: FinishedInMemorySpan) -> UInt64 { span.startInstant.nanosecondsSinceEpoch }
    static func end(_ span: FinishedInMemorySpan) -> UInt64 { span.endInstant.nanosecondsSinceEpoch }

    static func render(trace spans: [FinishedInMemorySpan], width: Int) -> String {
        let ids = Set(spans.map(\.spanID))
        let children = Dictionary(grouping: spans.filter { $0.parentSpanID.map(ids.contains) == true }) {
            $0.parentSpanID ?? ""
        }
        let roots = spans.filter { $0.parentSpanID.map(ids.contains) != true }.sorted { start($0) < start($1) }
        var lines: [Line] = []
        func visit(_ group: [FinishedInMemorySpan], depth: Int) {
            let first = group[0]
            var label = first.operationName + detail(of: first)
            if group.count > 1 { label += " ×\(group.count)" }
            lines.append(
                Line(
                    depth: depth, label: label, start: group.map(start).min() ?? 0, end: group.map(end).max() ?? 0))
            // What happened below, in time order: the spans (a run of same-named statements as one) and the waits.
            var items: [(start: UInt64, render: () -> Void)] = []
            if group.count == 1 {
                for event in first.events where event.name == "mend.wait" {
                    let seconds = number(event.attributes["mend.wait.duration"]) ?? 0
                    let at = event.nanosecondsSinceEpoch
                    let wait = Line(
                        depth: depth + 1, label: "wait \(text(event.attributes["mend.wait.reason"]) ?? "")",
                        start: at, end: at + UInt64(max(0, seconds) * 1e9), isWait: true)
                    items.append((at, { lines.append(wait) }))
                }
            }
            let below = group.flatMap { children[$0.spanID] ?? [] }.sorted { start($0) < start($1) }
            var index = 0
            while index < below.count {
                var run = [below[index]]
                // Statements only: each attempt keeps its line.
                while index + run.count < below.count, below[index].attributes["db.system.name"] != nil,
                    below[index + run.count].operationName == below[index].operationName,
                    children[below[index + run.count].spanID] == nil, children[below[index].spanID] == nil
                {
                    run.append(below[index + run.count])
                }
                let spans = run
                items.append((start(run[0]), { visit(spans, depth: depth + 1) }))
                index += run.count
            }
            for item in items.sorted(by: { $0.start < $1.start }) { item.render() }
        }
        for root in roots { visit([root], depth: 0) }
        let origin = lines.map(\.start).min() ?? 0
        let finish = max(lines.map(\.end).max() ?? origin, origin + 1)
        let total = Double(finish - origin) / 1e6
        let header =
            "trace \(roots.first?.traceID.suffix(8) ?? "") · \(roots.first?.operationName ?? "") · \(milliseconds(total))"
        let durationWidth = 9
        let labelWidth = max(20, width * 1 / 2)
        let barWidth = max(10, width - labelWidth - durationWidth - 3)
        var output = [String(header.prefix(width))]
        for line in lines {
            let label = fit(String(repeating: "  ", count: line.depth) + line.label, labelWidth)
            let span = Double(finish - origin)
            let from = Int(
                (Double(line.start.clamped(origin, finish) - origin) / span * Double(barWidth)).rounded(.down))
            var to = Int((Double(line.end.clamped(origin, finish) - origin) / span * Double(barWidth)).rounded(.up))
            to = min(barWidth, max(to, from + 1))
            let fill: Character = line.isWait ? "░" : "█"
            let bar =
                String(repeating: " ", count: from) + String(repeating: fill, count: to - from)
                + String(repeating: " ", count: barWidth - to)
            let duration = milliseconds(Double(line.end - min(line.end, line.start)) / 1e6)
            output.append(
                "\(label) |\(bar)|" + String(repeating: " ", count: max(0, durationWidth - duration.count)) + duration)
        }
        return output.joined(separator: "\n")
    }

    /// An attempt's number and status or error code; a logical request's or server span's error code; a statement's
    /// nothing more than its name.
    static func detail(of span: FinishedInMemorySpan) -> String {
        var parts: [String] = []
        if span.kind == .client, span.attributes["http.request.method"] != nil {
            let resends = number(span.attributes["http.request.resend_count"]).map(Int.init) ?? 0
            parts.append("#\(resends + 1)")
        }
        if let status = number(span.attributes["http.response.status_code"]), span.kind != .internal {
            parts.append(String(Int(status)))
        }
        if let error = text(span.attributes["error.type"]) { parts.append(error) }
        if let source = text(span.attributes["mend.session.source"]) { parts.append(source) }
        return parts.isEmpty ? "" : " " + parts.joined(separator: " ")
    }

    static func text(_ attribute: (any SpanAttributeConvertible)?) -> String? {
        guard case .string(let value) = attribute?.toSpanAttribute() else { return nil }
        return value
    }

    static func number(_ attribute: (any SpanAttributeConvertible)?) -> Double? {
        switch attribute?.toSpanAttribute() {
        case .int64(let value): Double(value)
        case .int32(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    static func milliseconds(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.1fs", value / 1000) : String(format: "%.1fms", value)
    }

    /// `text` cut to `width` characters (with `…`) or padded to it.
    static func fit(_ text: String, _ width: Int) -> String {
        if text.count > width { return String(text.prefix(width - 1)) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }
}

extension UInt64 {
    fileprivate func clamped(_ lower: UInt64, _ upper: UInt64) -> UInt64 { Swift.min(Swift.max(self, lower), upper) }
}
