public import Foundation

/// One request the emulator answered, with its credentials redacted.
public struct RequestLogEntry: Sendable, Codable, Hashable {
    /// The request's number, from 1.
    public var sequence: Int
    /// The method.
    public var method: String
    /// The path.
    public var path: String
    /// The query with tokens, secrets, codes and proofs redacted.
    public var query: String
    /// The status of the response (0 when the connection was dropped).
    public var status: Int
    /// The emulator time of the request.
    public var timestamp: Date
    /// The user whose token the request carried.
    public var userID: String?
    /// The app whose token or `client_id` the request carried.
    public var appID: String?
    /// The id of the fault that was applied, if any.
    public var faultID: String?
}

/// The request log: the last entries, oldest first.
struct RequestLog: Sendable {
    private(set) var entries: [RequestLogEntry] = []
    private var nextSequence = 1

    mutating func append(_ make: (Int) -> RequestLogEntry, limit: Int) {
        entries.append(make(nextSequence))
        nextSequence += 1
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }

    mutating func clear() { entries.removeAll() }
}
