public import Foundation
public import HTTPTypes
public import MendCore

/// Where a client keeps the last good answer to a request, per user, so that a transient failure can be answered
/// with what was last known (``LastKnownGood``).
///
/// Mend has two: ``InMemoryResponseStore`` (this module) and `FileResponseStore` (MendResponseStore: a folder,
/// crash-safe, optionally encrypted). An implementation of your own must keep each principal's entries apart,
/// delete their bytes on ``purge(_:)`` (not only forget them), bound its size, and never keep an entry older than
/// its maximum age.
///
/// A store never sees a credential: the answers it gets have no credential-bearing header (``StoredAnswer``), and
/// keys are made before the credential is attached.
public protocol ResponseStore: Sendable {
    /// The answer stored for `key`, or `nil` when there is none (or it is older than the store's maximum age).
    ///
    /// - Throws: `transport/15` (`cacheReadFailed`) when the store cannot be read; `transport/16`
    ///   (`invalidCacheData`) when the entry no longer decodes — the store has dropped it by then.
    func answer(for key: ResponseStoreKey) async throws -> StoredAnswer?

    /// Stores `answer` for `key`, replacing what was there.
    func store(_ answer: StoredAnswer, for key: ResponseStoreKey) async throws

    /// Removes the entry of `key`, if any.
    func remove(_ key: ResponseStoreKey) async throws

    /// Deletes every entry of `principal` (a sign-out, a revocation, a session the issuer ended).
    func purge(_ principal: Principal) async throws

    /// Deletes every entry except `principal`'s (a change of user; `nil`: every entry).
    func purgeAll(keeping principal: Principal?) async throws
}

/// What identifies a stored answer: whose it is, the method, and the resource (the URL, or the operation a client
/// names, such as a GraphQL query with its variables). The headers an answer varies by are checked against the
/// entry's own record of them (``StoredAnswer/variedFields``).
public struct ResponseStoreKey: Sendable, Hashable {
    /// Whose answer it is.
    public var principal: Principal
    /// The request's method (`GET`).
    public var method: String
    /// The request's URL with its credentials' query values removed, or the client's own name for the request.
    public var resource: String

    /// Creates a key.
    public init(principal: Principal, method: String, resource: String) {
        self.principal = principal
        self.method = method
        self.resource = resource
    }

    /// The key as one unambiguous text (what a store hashes to name the entry).
    public var canonicalText: String {
        "\(principal.canonicalText)\n\(method)\n\(resource.utf8.count):\(resource)"
    }
}

/// One stored answer: the status, the header fields (none that carries a credential), the body, and when it was
/// made.
public struct StoredAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The header fields, without any that carries a credential (`Set-Cookie`, `Authorization`, `DPoP-Nonce`, and
    /// every header of Mend's secret vocabulary).
    public private(set) var headerFields: HTTPFields
    /// The body.
    public var body: Data
    /// When the answer was made: the time it was received, less the age the server reported (`Age`).
    public var storedAt: Date
    /// The request's values of the header fields the answer varies by (its `Vary`), lowercased names; an entry is
    /// used only for a request with the same values.
    public var variedFields: [String: String]

    /// Creates an answer; credential-bearing header fields are dropped.
    public init(status: Int, headerFields: HTTPFields, body: Data, storedAt: Date, variedFields: [String: String] = [:])
    {
        self.status = status
        self.headerFields = Self.withoutCredentials(headerFields)
        self.body = body
        self.storedAt = storedAt
        self.variedFields = variedFields
    }

    /// The size the entry takes, roughly: its body and header fields.
    package var size: Int {
        body.count + headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The header fields that may be kept: none whose name is in the secret vocabulary, and none of the answers
    /// that set or challenge a credential.
    static func withoutCredentials(_ fields: HTTPFields) -> HTTPFields {
        var kept = HTTPFields()
        for field in fields where !excludedNames.contains(field.name.canonicalName) {
            kept.append(field)
        }
        return kept
    }

    private static let excludedNames: Set<String> = SecretVocabulary.headers.union([
        "set-cookie2", "dpop-nonce", "www-authenticate", "proxy-authenticate", "authentication-info",
        "proxy-authentication-info",
    ])
}

/// A ``ResponseStore`` in memory: for tests, and for apps that want stale answers only while they run.
///
/// Bounded by ``ResponseStoreLimits``: the entries written longest ago go first when the bytes exceed the bound; an
/// entry older than the maximum age is never returned.
public final class InMemoryResponseStore: ResponseStore {
    private let entries = Locked<[ResponseStoreKey: (answer: StoredAnswer, written: UInt64)]>([:])
    private let counter = Locked<UInt64>(0)
    private let limits: ResponseStoreLimits
    private let now: @Sendable () -> Date

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - limits: The size bound and the maximum entry age.
    ///   - clock: Where the entries' ages are read from.
    public init(limits: ResponseStoreLimits = ResponseStoreLimits(), clock: PipelineClock = .system) {
        self.limits = limits
        self.now = clock.now
    }

    /// The stored answer for `key`, unless it is older than the maximum age (then it is removed).
    public func answer(for key: ResponseStoreKey) async throws -> StoredAnswer? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard now.timeIntervalSince(entry.answer.storedAt) <= limits.maximumAge else {
                entries[key] = nil
                return nil
            }
            return entry.answer
        }
    }

    /// Stores `answer`, then evicts the entries written longest ago while the bytes exceed the bound.
    public func store(_ answer: StoredAnswer, for key: ResponseStoreKey) async throws {
        guard answer.size <= limits.maximumBytes else { return }
        let order = counter.withLock { count in
            count += 1
            return count
        }
        entries.withLock { entries in
            entries[key] = (answer, order)
            var total = entries.values.reduce(0) { $0 + $1.answer.size }
            for (oldest, entry) in entries.sorted(by: { $0.value.written < $1.value.written }) {
                guard total > limits.maximumBytes else { break }
                entries[oldest] = nil
                total -= entry.answer.size
            }
        }
    }

    /// Removes the entry of `key`.
    public func remove(_ key: ResponseStoreKey) async throws {
        entries.withLock { $0[key] = nil }
    }

    /// Removes every entry of `principal`.
    public func purge(_ principal: Principal) async throws {
        entries.withLock { $0 = $0.filter { $0.key.principal != principal } }
    }

    /// Removes every entry but `principal`'s.
    public func purgeAll(keeping principal: Principal?) async throws {
        entries.withLock { $0 = $0.filter { $0.key.principal == principal } }
    }

    /// How many entries the store holds.
    package var count: Int { entries.withLock { $0.count } }

    /// The keys of the entries the store holds.
    package func keys() async -> [ResponseStoreKey] { entries.withLock { Array($0.keys) } }
}

/// How much a response store keeps, and for how long.
public struct ResponseStoreLimits: Sendable, Hashable {
    /// The most bytes the entries take together; the entries written longest ago are evicted first.
    public var maximumBytes: Int
    /// The age (since an answer was made) after which an entry is never served, and is deleted.
    public var maximumAge: TimeInterval

    /// Creates limits: 20 MiB and 7 days by default.
    public init(maximumBytes: Int = 20 << 20, maximumAge: TimeInterval = 7 * 86_400) {
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
    }
}
