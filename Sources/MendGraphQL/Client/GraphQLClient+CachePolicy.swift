public import MendCore
public import MendHTTP

extension GraphQLClient {
    /// How a query uses the client's response store: Apollo's cache policies, for whole responses.
    ///
    /// Mend stores each query's response as it came — data and errors, keyed by the user, the document, the
    /// operation's name and the variables — not Apollo's normalized cache of objects: two queries that read the same
    /// object keep two copies, and a mutation's answer updates neither. The store is the client's `LastKnownGood`
    /// (none: every policy goes to the network, and ``cacheOnly`` finds nothing).
    ///
    /// | Mend | Apollo iOS |
    /// |---|---|
    /// | `networkOnly` | `fetchIgnoringCacheData` |
    /// | `cacheFirst` | `returnCacheDataElseFetch` |
    /// | `cacheAndNetwork` | `returnCacheDataAndFetch` |
    /// | `cacheOnly` | `returnCacheDataDontFetch` |
    /// | `noCache` | `fetchIgnoringCacheCompletely` |
    ///
    /// Whatever the policy, a stored response stands in for a transient failure of the network only within the
    /// operation's ``GraphQLOperation/maxStale`` — never for an expired token or any other failure that is not
    /// transient (Apollo's `networkFirst` falls back on any error).
    public enum CachePolicy: Sendable, Hashable {
        /// The network; its response is stored (the default).
        case networkOnly
        /// The stored response when there is one (however old, within the store's maximum age), else the network.
        case cacheFirst
        /// The stored response first, if any, then the network's: ``GraphQLClient/responses(_:as:errorPolicy:)``
        /// yields both; `send` returns the network's.
        case cacheAndNetwork
        /// Only the stored response: `transport/17` (`notCached`) when there is none; nothing is sent.
        case cacheOnly
        /// The network, and nothing is read or stored.
        case noCache
    }

    /// The results of `operation` as its cache policy gives them: for ``CachePolicy/cacheAndNetwork``, the stored
    /// response (when there is one) and then the network's; for the other policies, the one response `send` returns.
    /// A failure of the network after a stored response was yielded ends the sequence with that error.
    ///
    /// ```swift
    /// let query = GraphQLOperation("{ me { name } }", cachePolicy: .cacheAndNetwork)
    /// for try await response in graphQL.responses(query, as: MeQuery.self) {
    ///     show(response.data, isStored: response.source == .store)
    /// }
    /// ```
    public func responses<Value: Decodable & Sendable>(
        _ operation: GraphQLOperation, as type: Value.Type, errorPolicy: ErrorPolicy? = nil
    ) -> AsyncThrowingStream<GraphQLResponse<Value>, any Error> {
        let policy = errorPolicy ?? configuration.errorPolicy
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    if operation.cachePolicy == .cacheAndNetwork, operation.kind == .query,
                        let stored = try? await self.storedResponse(of: operation, as: type, failing: false)
                    {
                        continuation.yield(try self.applying(policy, to: stored))
                    }
                    continuation.yield(try await self.send(operation, as: type, errorPolicy: policy))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The stored response of `operation`, or `nil` when there is none (and `failing` is false). A store that
    /// cannot be read, and an entry that no longer decodes (dropped), are thrown only when `failing` (``CachePolicy/cacheOnly``);
    /// otherwise the network answers.
    func storedResponse<Value: Decodable & Sendable>(
        of operation: GraphQLOperation, as type: Value.Type, failing: Bool
    ) async throws -> GraphQLResponse<Value>? {
        let catalog = configuration.classifier.catalog
        guard let lastKnownGood else {
            guard failing else { return nil }
            throw MendError(
                code: .Transport.notCached, developerMessage: "The client keeps no responses (no LastKnownGood).",
                catalog: catalog)
        }
        let request = try makeRequest(operation, includingText: true)
        let stored: StoredAnswer?
        do {
            stored = try await lastKnownGood.storedAnswer(for: request)
        } catch {
            guard failing else { return nil }
            throw error
        }
        guard let stored else {
            guard failing else { return nil }
            throw MendError(
                code: .Transport.notCached, developerMessage: "No response of this query is stored for this user.",
                catalog: catalog)
        }
        guard case .success(let json) = JSONValue.parse(stored.body, maxBytes: .max, duplicateMembers: .lastWins),
            let body = try? GraphQLResponseBody(json: json)
        else {
            try? await lastKnownGood.removeAnswer(for: request)
            guard failing else { return nil }
            throw MendError(
                code: .Transport.invalidCacheData,
                developerMessage: "The stored response is not a GraphQL response; it was dropped.", catalog: catalog)
        }
        var response = Self.response(from: body, as: type, classifier: configuration.classifier, attempts: 0)
        response.source = .store
        return response
    }
}
