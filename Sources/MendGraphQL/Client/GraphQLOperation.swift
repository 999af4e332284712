public import MendCore
import MendHTTP

/// A GraphQL operation: its text, variables and name, and whether it is a query or a mutation.
public struct GraphQLOperation: Sendable, Hashable {
    /// Query, mutation or subscription.
    package enum Kind: String, Sendable, Hashable {
        /// Reads: retried when transient, sent with GET when the client prefers it.
        case query
        /// Writes: never retried unless the operation opts in.
        case mutation
        /// Subscriptions are not sent over plain HTTP by this client.
        case subscription
    }

    /// The operation's text.
    public var text: String
    /// The variables.
    public var variables: [String: JSONValue]
    /// The operation to run, when the text holds several.
    public var operationName: String?
    /// The SHA-256 (hex) of ``text`` for automatic persisted queries, if the app uses them.
    public var persistedQueryHash: String?
    /// Whether a mutation may be retried (it must be idempotent on the server).
    public var allowsRetry: Bool
    /// How a query uses the client's response store (``GraphQLClient/CachePolicy``); mutations never do.
    public var cachePolicy: GraphQLClient.CachePolicy
    /// How old a stored response may be to stand in for a transient failure of the query (`LastKnownGood`);
    /// `nil`: never.
    public var maxStale: Duration?

    /// Creates an operation.
    ///
    /// - Parameters:
    ///   - text: The document.
    ///   - variables: The variables.
    ///   - operationName: The operation to run, when the text holds several.
    ///   - persistedQueryHash: The SHA-256 (hex) of `text`, for automatic persisted queries.
    ///   - allowsRetry: Whether a mutation may be retried.
    ///   - cachePolicy: How a query uses the client's response store (``GraphQLClient/CachePolicy/networkOnly`` by
    ///     default: the network, and its answer stored when the client has a store).
    ///   - maxStale: How old a stored response may be to stand in for a transient failure; `nil`: never.
    public init(
        _ text: String, variables: [String: JSONValue] = [:], operationName: String? = nil,
        persistedQueryHash: String? = nil, allowsRetry: Bool = false,
        cachePolicy: GraphQLClient.CachePolicy = .networkOnly, maxStale: Duration? = nil
    ) {
        self.text = text
        self.variables = variables
        self.operationName = operationName
        self.persistedQueryHash = persistedQueryHash
        self.allowsRetry = allowsRetry
        self.cachePolicy = cachePolicy
        self.maxStale = maxStale
    }

    /// The operation's name in a response store: the document, the operation's name and the variables (keys
    /// sorted). The client adds its endpoint; the user is the store's key's other part.
    var storeResource: String {
        "graphql \(operationName ?? "")\n\(text)\n\(JSONValue.object(variables).jsonText())"
    }

    /// The kind of the operation this runs: the definition ``operationName`` names, or the document's only
    /// operation, read from the document's definitions (fragments, strings and comments skipped).
    ///
    /// When the text does not say for certain — a syntax error, several operations and no name, a name that matches
    /// none — the kind is ``Kind/mutation``: the operation is sent by POST and never retried once the server may
    /// have processed it. A write is never mistaken for a read.
    package var kind: Kind {
        GraphQLDocumentScanner.kind(of: text, operationName: operationName) ?? .mutation
    }

    /// The operation in OpenTelemetry's GraphQL terms: the span `{type} {name}` (`query PostList`, or `query`
    /// without a name) with `graphql.operation.type` and `graphql.operation.name`; `nil` when the document does not
    /// say for certain which operation runs. Never the document or the variables (they may hold personal data).
    var observed: ObservedRequest.Operation? {
        guard let scanned = GraphQLDocumentScanner.operation(in: text, operationName: operationName) else { return nil }
        let type = scanned.kind.rawValue
        var attributes = ["graphql.operation.type": type]
        if let name = scanned.name { attributes["graphql.operation.name"] = name }
        return ObservedRequest.Operation(name: scanned.name.map { "\(type) \($0)" } ?? type, attributes: attributes)
    }

    /// The request body (`{"query", "variables", "operationName", "extensions"}`).
    func body(includingText: Bool = true) -> JSONValue {
        var object: [String: JSONValue] = [:]
        if includingText { object["query"] = .string(text) }
        if !variables.isEmpty { object["variables"] = .object(variables) }
        if let operationName { object["operationName"] = .string(operationName) }
        if let persistedQueryHash {
            object["extensions"] = .object([
                "persistedQuery": .object(["version": .int(1), "sha256Hash": .string(persistedQueryHash)])
            ])
        }
        return .object(object)
    }
}
