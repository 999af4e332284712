public import Logging
import MendCore

/// Captures log records in memory, to assert what a library logged (and that no secret was).
///
/// ```swift
/// let capture = LogCapture()
/// let client = APIClient(transport: transport, logger: capture.logger(level: .trace))
/// #expect(!capture.text.contains(token))
/// ```
public final class LogCapture: Sendable {
    /// One captured record.
    public struct Record: Sendable {
        /// The level.
        public var level: Logger.Level
        /// The message.
        public var message: String
        /// The metadata, rendered.
        public var metadata: [String: String]
    }

    private let storage = Locked<[Record]>([])

    /// Creates an empty capture.
    public init() {}

    /// A logger that writes into this capture.
    public func logger(label: String = "mend.test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// Every record so far.
    public var records: [Record] { storage.withLock { $0 } }

    /// Every record as one text: messages and metadata values.
    public var text: String {
        records.map { record in
            ([record.message] + record.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }

    fileprivate func append(_ record: Record) { storage.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(
                Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
