public import Foundation
public import HTTPTypes
import Logging
public import MendCore

/// Answers a transient failure with the last good answer the user got, marked stale — never another user's, never
/// after their session ended, never for an error that waiting cannot fix.
///
/// Give it to a client's steps (`.standard(credentialProvider:lastKnownGood:)`, `.graph(for:credentials:lastKnownGood:)`,
/// GraphQL's client configuration) and ask for stale answers per request (``RequestOptions/maxStale``):
///
/// ```swift
/// let answers = InMemoryResponseStore()   // or MendResponseStore's FileResponseStore
/// let credentials = CredentialsManager(store: FileTokenStore(), authority: backend, responseStore: answers)
/// let client = APIClient(
///     transport: transport,
///     steps: .standard(credentialProvider: credentials, lastKnownGood: LastKnownGood(store: answers)))
/// let response = try await client.send(APIRequest(method: .get, url: meURL, options: .init(maxStale: .seconds(3600))))
/// if let staleness = response.staleness { print(staleness) }   // "stale, 3 min old, because …"
/// ```
///
/// **What is served.** Only when the request's final error — after the retries, the rate-limit holds and a
/// credential's renewal that the steps below it ran — is `transient` in the catalog (no connection, a timeout, a
/// transient 5xx, a 429 or a rate-limit hold), and the entry is within the request's `maxStale` and any
/// `stale-if-error` its answer carried. Never for a 401 or 403, an ended session, a validation error, a request the
/// server asked to shrink, or a cancellation. The step sits outermost, above authorization, so a rejected
/// credential is renewed (a refresh, a login) first, and a stale answer stands in only when that renewal failed
/// transiently.
///
/// **Whose.** Every entry is keyed by the principal the credential provider names (a session's user and issuer);
/// with none, nothing is stored or served. MendLogin's `CredentialsManager` purges the store at every end of a
/// session it learns of and at a change of user.
///
/// **Two modes**, see ``Mode``.
public struct LastKnownGood: Sendable {
    /// Which answers are kept, and which are served without the network.
    public enum Mode: Sendable, Hashable {
        /// The app opts in per request (``RequestOptions/maxStale``): every 2xx answer to such a request is kept,
        /// whatever its `Cache-Control` says (an API like the Graph API answers `no-store`), and served only in place
        /// of a transient failure. This is not an HTTP cache: nothing is served while the network answers.
        case snapshot
        /// An HTTP cache after RFC 9111, private to the user, for APIs whose answers allow it: a `GET` answer is
        /// kept when its `Cache-Control` or `Expires` gives it a freshness or a `stale-if-error` (`no-store` and
        /// `Vary: *` are never kept); a fresh entry is served without the network (unless the answer said
        /// `no-cache`, or the request asks `no-cache` or `max-age=0`); a stale entry stands in for a transient
        /// failure within `stale-if-error` or the request's `maxStale`, never past `must-revalidate`. Conditional
        /// revalidation (`ETag`, `If-None-Match`) is not done: an entry that needs it is not used.
        case httpCaching
    }

    /// Where the answers are kept.
    public var store: any ResponseStore
    /// What is kept and served.
    public var mode: Mode

    /// Creates the configuration.
    ///
    /// - Parameters:
    ///   - store: Where the answers are kept (purge it at sign-out: MendLogin's `CredentialsManager` does when given
    ///     it).
    ///   - mode: ``Mode/snapshot`` (opted in per request; for `no-store` APIs) or ``Mode/httpCaching`` (RFC 9111).
    public init(store: any ResponseStore, mode: Mode = .snapshot) {
        self.store = store
        self.mode = mode
    }
}

/// Why an answer is stale, and how old it is: what a ``LastKnownGood`` answer carries in place of a failure.
public struct Staleness: Sendable, CustomStringConvertible {
    /// When the answer was made.
    public var storedAt: Date
    /// How old the answer is, in seconds.
    public var age: TimeInterval
    /// The failure the stale answer stands in for.
    public var error: MendError

    /// Creates a staleness.
    public init(storedAt: Date, age: TimeInterval, error: MendError) {
        self.storedAt = storedAt
        self.age = age
        self.error = error
    }

    /// `stale, 3 min old, because you're offline… (transport/1)`, the error's message in the preferred language.
    public var description: String { Self.describe(age: age, because: error.userMessage, code: error.code) }

    /// The description with the error's message in `locale`'s language.
    public func description(locale: Locale) -> String {
        Self.describe(age: age, because: error.userMessage(locale: locale), code: error.code)
    }

    private static func describe(age: TimeInterval, because message: String, code: MendError.Code) -> String {
        "stale, \(text(forAge: age)) old, because \(message.lowercasedFirst) (\(code))"
    }

    /// An age in words: `12 s`, `3 min`, `2 h`, `4 d`.
    package static func text(forAge age: TimeInterval) -> String {
        let seconds = Int(max(0, age))
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<86_400: return "\(seconds / 3600) h"
        default: return "\(seconds / 86_400) d"
        }
    }
}

extension String {
    fileprivate var lowercasedFirst: String {
        guard let first, first.isUppercase, dropFirst().first?.isUppercase != true else { return self }
        return first.lowercased() + dropFirst()
    }
}

/// The step of ``LastKnownGood``: outermost, so that everything below it (renewal, rate-limit holds, retries) has
/// run when it decides.
package struct LastKnownGoodStep: ClientMiddleware {
    let configuration: LastKnownGood
    let principal: @Sendable () async throws -> Principal?

    package init(_ configuration: LastKnownGood, principal: @escaping @Sendable () async throws -> Principal?) {
        self.configuration = configuration
        self.principal = principal
    }

    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        guard let key = await key(for: request) else { return try await next(request, context: context) }
        let requestDirectives = CacheDirectives(request.head.headerFields)
        let store = configuration.store
        var stored: StoredAnswer??  // read at most once
        if configuration.mode == .httpCaching, !requestDirectives.noStore {
            let entry = await read(key, request: request, context: context)
            stored = .some(entry)
            if let entry, !requestDirectives.noCache, requestDirectives.maxAge != 0,
                let freshness = Freshness(entry, now: context.clock.now()), freshness.isFresh,
                !freshness.directives.noCache
            {
                return APIResponse(stored: entry, attempts: context.attempts, staleness: nil)
            }
        }
        do {
            let response = try await next(request, context: context)
            // Stored under the principal it was asked for only if that is still whose credential it is: a renewal
            // in between may have logged another user in.
            if let answer = storable(
                response, request: request, directives: requestDirectives, now: context.clock.now()),
                await isStill(key.principal)
            {
                try? await store.store(answer, for: key)
            }
            return response
        } catch let error as MendError where Self.mayServeStale(in: error) {
            // Never after the session ended, or another user signed in, while the request ran.
            guard await isStill(key.principal) else { throw error }
            let entry: StoredAnswer?
            if let stored { entry = stored } else { entry = await read(key, request: request, context: context) }
            guard let entry, let freshness = Freshness(entry, now: context.clock.now()),
                freshness.mayStandIn(maxStale: request.options.maxStale, mode: configuration.mode)
            else { throw error }
            let staleness = Staleness(storedAt: entry.storedAt, age: freshness.age, error: error)
            context.observation?.servedStale(staleness)
            return APIResponse(stored: entry, attempts: context.attempts, staleness: staleness)
        }
    }

    /// Whether `principal` is still whose credential the provider holds.
    private func isStill(_ principal: Principal) async -> Bool {
        (try? await self.principal()) == principal
    }

    /// Whether a stale answer may stand in for `error`: a transient failure — never one that asks for a smaller
    /// request, whatever a provider's configuration calls it (the same request never succeeds).
    static func mayServeStale(in error: MendError) -> Bool {
        error.category == .transient && error.recovery.action != .reduceRequestSize
    }

    /// The key of `request`, or `nil` when it takes no part: no principal, a mode that does not cover it.
    private func key(for request: APIRequest) async -> ResponseStoreKey? {
        let named = request.options.storeResource
        switch configuration.mode {
        case .snapshot:
            // A request that asks for stale answers, or one a client names (its cache policy reads the store).
            guard request.options.maxStale != nil || named != nil else { return nil }
            guard named != nil || request.head.method == .get || request.head.method == .head else { return nil }
        case .httpCaching:
            guard named != nil || request.head.method == .get else { return nil }
        }
        guard let principal = try? await principal() else { return nil }
        let resource =
            named
            ?? "\(request.head.scheme ?? "https")://\(request.head.authority ?? "")"
            + QueryRedaction.redact(path: request.head.path ?? "/", placeholder: "")
        return ResponseStoreKey(principal: principal, method: request.head.method.rawValue, resource: resource)
    }

    /// The stored answer for `request`, keyed as this step keys it: what a client's cache policy reads (a GraphQL
    /// `cacheFirst`); `nil` when there is none, or no principal.
    ///
    /// - Throws: `transport/15` (`cacheReadFailed`) or `transport/16` (`invalidCacheData`, the entry dropped).
    package func storedAnswer(for request: APIRequest) async throws -> StoredAnswer? {
        guard let key = await key(for: request) else { return nil }
        return try await matching(configuration.store.answer(for: key), request: request)
    }

    /// Removes the stored answer for `request` (one a client found undecodable).
    package func removeAnswer(for request: APIRequest) async throws {
        guard let key = await key(for: request) else { return }
        try await configuration.store.remove(key)
    }

    /// `entry` if its varied fields match `request`'s.
    private func matching(_ entry: StoredAnswer?, request: APIRequest) -> StoredAnswer? {
        guard let entry else { return nil }
        for (name, value) in entry.variedFields {
            guard let fieldName = HTTPField.Name(name),
                request.head.headerFields[values: fieldName].joined(separator: ", ") == value
            else { return nil }
        }
        return entry
    }

    /// The entry of `key` if its varied fields match `request`'s; a store that cannot be read, or an entry that
    /// does not decode (the store dropped it), is logged and read as no entry: the failure it would stand in for is
    /// thrown instead.
    private func read(_ key: ResponseStoreKey, request: APIRequest, context: PipelineContext) async -> StoredAnswer? {
        do {
            return matching(try await configuration.store.answer(for: key), request: request)
        } catch {
            context.logger.debug("The response store could not be read", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// What `response` leaves in the store, if anything.
    private func storable(
        _ response: APIResponse, request: APIRequest, directives: CacheDirectives, now: Date
    ) -> StoredAnswer? {
        guard response.source == .network, !directives.noStore else { return nil }
        let fields = response.head.headerFields
        let status = response.head.status.code
        var madeAt = now
        if let age = fields[.age].flatMap({ Int($0) }), age > 0 { madeAt = now.addingTimeInterval(-TimeInterval(age)) }
        let varied = fields[values: .vary].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if varied.contains("*") { return nil }
        var values: [String: String] = [:]
        for name in varied where name != "authorization" {  // the principal keys the entry: its credential is moot
            guard let fieldName = HTTPField.Name(name) else { return nil }
            values[name] = request.head.headerFields[values: fieldName].joined(separator: ", ")
        }
        switch configuration.mode {
        case .snapshot:
            guard (200..<300).contains(status), status != 206 else { return nil }
        case .httpCaching:
            let answerDirectives = CacheDirectives(fields)
            guard [200, 203, 204, 300, 301, 308, 404, 410].contains(status), !answerDirectives.noStore,
                CacheDirectives.freshnessLifetime(of: fields, directives: answerDirectives, now: now) != nil
                    || answerDirectives.staleIfError != nil
            else { return nil }
        }
        return StoredAnswer(
            status: status, headerFields: fields, body: response.body, storedAt: madeAt, variedFields: values)
    }
}

/// How old a stored answer is and what its `Cache-Control` allows.
struct Freshness {
    let directives: CacheDirectives
    /// Seconds since the answer was made.
    let age: TimeInterval
    /// Seconds it stays fresh (0 when the answer gives none).
    let lifetime: TimeInterval

    init?(_ entry: StoredAnswer, now: Date) {
        directives = CacheDirectives(entry.headerFields)
        age = max(0, now.timeIntervalSince(entry.storedAt))
        lifetime =
            CacheDirectives.freshnessLifetime(of: entry.headerFields, directives: directives, now: entry.storedAt) ?? 0
    }

    var isFresh: Bool { age < lifetime }
    /// Seconds past its freshness.
    var staleness: TimeInterval { max(0, age - lifetime) }

    /// Whether the answer may stand in for a transient failure.
    func mayStandIn(maxStale: Duration?, mode: LastKnownGood.Mode) -> Bool {
        let allowed = maxStale.map {
            TimeInterval($0.components.seconds) + TimeInterval($0.components.attoseconds) / 1e18
        }
        if let allowed, staleness > allowed { return false }
        if let cap = directives.staleIfError, staleness > cap { return false }
        switch mode {
        case .snapshot:
            return allowed != nil
        case .httpCaching:
            guard !directives.noCache else { return false }
            if isFresh { return true }
            guard !directives.mustRevalidate else { return false }
            return allowed != nil || directives.staleIfError != nil
        }
    }
}
