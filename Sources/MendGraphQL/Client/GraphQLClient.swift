public import Foundation
public import HTTPTypes
public import Logging
public import MendCore
public import MendHTTP

/// A GraphQL client that returns partial data with typed errors.
///
/// Execution errors (network, TLS, HTTP status, an unparsable body) are thrown as classified
/// `MendError`s. GraphQL errors come back with whatever data the server produced, each error typed
/// (``GraphQLError``) and classified by `extensions.code`; what happens to them is the ``ErrorPolicy``'s choice.
/// `UNAUTHENTICATED` re-authenticates once through the credential provider; transient errors are retried for
/// queries only (mutations opt in).
///
/// ```swift
/// let graphQL = GraphQLClient(endpoint: URL(string: "https://api.example/graphql")!, transport: transport)
/// let response = try await graphQL.send(GraphQLOperation("{ me { name } }"), as: MeQuery.self)
/// for error in response.errors { print(error.pathText ?? "-", error.message) }
/// ```
public final class GraphQLClient: Sendable {
    /// What a request does with GraphQL errors.
    public enum ErrorPolicy: Sendable, Hashable {
        /// Any GraphQL error throws a `MendError` (`responseHasErrors`) carrying the errors and the data.
        case none
        /// Data only: errors are dropped.
        case ignore
        /// Data and errors together (the default).
        case all
    }

    /// The endpoint (`https://api.example/graphql`).
    package let endpoint: URL
    /// The configuration.
    package let configuration: Configuration
    /// The pipeline.
    package let client: APIClient
    /// The step that keeps the user's last good responses, when the client's steps have one: where the cache
    /// policies read.
    let lastKnownGood: LastKnownGoodStep?

    /// Creates a client that sends through `steps`, outermost first.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - transport: The transport.
    ///   - configuration: How operations go out and how their errors are read.
    ///   - steps: The pipeline's steps: `.standard(credentialProvider:…)` by default (authorization with
    ///     `UNAUTHENTICATED` re-authenticating once, rate-limit gate, retry of transient failures of queries, logging).
    ///   - logger: Where the steps' logging goes.
    public init(
        endpoint: URL, transport: any HTTPTransport, configuration: Configuration = Configuration(),
        steps: [any ClientMiddleware] = .standard(),
        logger: Logger = Logger(label: "mend.graphql", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.client = APIClient(
            transport: transport,
            configuration: .init(
                errorDecoder: GraphQLResponseDecoder(classifier: configuration.classifier),
                catalog: configuration.classifier.catalog,
                maximumResponseBodySize: configuration.maximumResponseBodySize, clock: configuration.clock),
            steps: steps, logger: logger)
        self.lastKnownGood = steps.lazy.compactMap { $0 as? LastKnownGoodStep }.first
    }

    /// Creates a client with the standard steps and `credentials`.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - transport: The transport.
    ///   - configuration: How operations go out and how their errors are read.
    ///   - credentials: Supplies, invalidates and renews the credential (MendLogin's `SessionCredentials`: refresh,
    ///     else log in again); `nil` sends requests without one.
    ///   - lastKnownGood: Where the user's last good responses are kept, for the cache policies
    ///     (``GraphQLOperation/cachePolicy``) and to stand in for transient failures (``GraphQLOperation/maxStale``);
    ///     `nil`: nowhere. The principal is the one `credentials` names.
    ///   - logger: Where the steps' logging goes.
    public convenience init(
        endpoint: URL, transport: any HTTPTransport, configuration: Configuration = Configuration(),
        credentials: (any CredentialProvider)?, lastKnownGood: LastKnownGood? = nil,
        logger: Logger = Logger(label: "mend.graphql", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(
            endpoint: endpoint, transport: transport, configuration: configuration,
            steps: .standard(credentialProvider: credentials, lastKnownGood: lastKnownGood), logger: logger)
    }

    /// Sends `operation` and decodes its data into `Value`.
    ///
    /// - Throws: An execution error; under ``ErrorPolicy/none``, also a `responseHasErrors` error for any GraphQL
    ///   error; `CancellationError` when cancelled.
    public func send<Value: Decodable & Sendable>(
        _ operation: GraphQLOperation, as type: Value.Type
    ) async throws -> GraphQLResponse<Value> {
        try await send(operation, as: type, errorPolicy: configuration.errorPolicy)
    }

    /// Sends `operation` under `errorPolicy` and decodes its data into `Value`.
    ///
    /// - Throws: An execution error; under ``ErrorPolicy/none``, also a `responseHasErrors` error for any GraphQL
    ///   error; `CancellationError` when cancelled.
    public func send<Value: Decodable & Sendable>(
        _ operation: GraphQLOperation, as type: Value.Type, errorPolicy: ErrorPolicy
    ) async throws -> GraphQLResponse<Value> {
        guard operation.kind != .subscription else {
            throw MendError(
                code: .GraphQL.badRequest, developerMessage: "Subscriptions need a streaming transport.",
                catalog: configuration.classifier.catalog)
        }
        if operation.kind == .query, operation.cachePolicy == .cacheFirst || operation.cachePolicy == .cacheOnly,
            let stored = try await storedResponse(of: operation, as: type, failing: operation.cachePolicy == .cacheOnly)
        {
            return try applying(errorPolicy, to: stored)
        }
        return try applying(errorPolicy, to: try await fetch(operation, as: type))
    }

    /// Sends `operation` over the network (the persisted query's text sent again when the server asks).
    func fetch<Value: Decodable & Sendable>(
        _ operation: GraphQLOperation, as type: Value.Type
    ) async throws -> GraphQLResponse<Value> {
        var (body, meta) = try await exchange(operation, includingText: operation.persistedQueryHash == nil)
        if operation.persistedQueryHash != nil, body.errors.contains(where: { $0.code == "PERSISTED_QUERY_NOT_FOUND" })
        {
            let (retried, more) = try await exchange(operation, includingText: true)
            body = retried
            meta = (meta.attempts + more.attempts, more.source, more.staleness)
        }
        var response = Self.response(
            from: body, as: type, classifier: configuration.classifier, attempts: meta.attempts)
        response.source = meta.source
        response.staleness = meta.staleness
        return response
    }

    /// `response` as `errorPolicy` has it: whole, without its errors, or thrown when it has any.
    func applying<Value: Decodable & Sendable>(
        _ errorPolicy: ErrorPolicy, to response: GraphQLResponse<Value>
    ) throws(MendError) -> GraphQLResponse<Value> {
        switch errorPolicy {
        case .all:
            return response
        case .ignore:
            var dataOnly = response
            dataOnly.errors = []
            dataOnly.classifiedErrors = []
            return dataOnly
        case .none:
            guard response.errors.isEmpty, response.decodingFailure == nil else {
                throw GraphQLResponseBody.responseError(
                    errors: response.errors, classified: response.classifiedErrors, rawData: response.rawData,
                    decodingFailure: response.decodingFailure, attempts: response.attempts,
                    catalog: configuration.classifier.catalog)
            }
            return response
        }
    }

    /// Sends `operation` and returns its data as raw JSON.
    public func send(_ operation: GraphQLOperation) async throws -> GraphQLResponse<JSONValue> {
        try await send(operation, as: JSONValue.self, errorPolicy: configuration.errorPolicy)
    }

    /// Sends `operation` under `errorPolicy` and returns its data as raw JSON.
    public func send(_ operation: GraphQLOperation, errorPolicy: ErrorPolicy) async throws -> GraphQLResponse<JSONValue>
    {
        try await send(operation, as: JSONValue.self, errorPolicy: errorPolicy)
    }

    /// The completion-handler flavour: `completion` is called exactly once.
    @discardableResult
    public func send<Value: Decodable & Sendable>(
        _ operation: GraphQLOperation, as type: Value.Type,
        completion: @escaping @Sendable (Completion<GraphQLResponse<Value>>) -> Void
    ) -> RequestHandle {
        RequestHandle.run({ try await self.send(operation, as: type) }, completion: completion)
    }

    /// What a response was besides its body: how many tries, where it came from, how stale.
    typealias ExchangeMeta = (attempts: Int, source: APIResponse.Source, staleness: Staleness?)

    private func exchange(
        _ operation: GraphQLOperation, includingText: Bool
    ) async throws -> (GraphQLResponseBody, ExchangeMeta) {
        let request = try makeRequest(operation, includingText: includingText)
        do {
            let response = try await client.send(request)
            let json = try response.json()
            guard let body = try? GraphQLResponseBody(json: json) else {
                throw MendError(
                    code: .GraphQL.noData, developerMessage: "The response is not a GraphQL response.",
                    catalog: configuration.classifier.catalog)
            }
            return (body, (response.attempts, response.source, response.staleness))
        } catch let error as MendError {
            // A data-less response that the pipeline re-authenticated or retried in vain: return it as a response.
            if let payload = error.underlying as? GraphQLPayload {
                return (payload.body, (error.attempts, .network, nil))
            }
            throw error
        }
    }

    func makeRequest(_ operation: GraphQLOperation, includingText: Bool) throws(MendError) -> APIRequest {
        let retryable = operation.kind == .query || operation.allowsRetry
        var options = RequestOptions(allowsRetry: retryable, timeout: configuration.timeout)
        options.operation = operation.observed
        if operation.kind == .query, operation.cachePolicy != .noCache {
            options.storeResource = "\(endpoint.absoluteString)\n\(operation.storeResource)"
            options.maxStale = operation.maxStale
        }
        var headers = HTTPFields()
        headers[.accept] = "application/graphql-response+json, application/json"
        let body = operation.body(includingText: includingText)
        if configuration.usesGETForQueries, operation.kind == .query {
            guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
                throw MendError(
                    code: .Transport.invalidRequest, developerMessage: "The endpoint is not a URL.",
                    catalog: configuration.classifier.catalog)
            }
            var items = components.queryItems ?? []
            for (key, value) in (body.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                items.append(URLQueryItem(name: key, value: value.stringValue ?? value.jsonText()))
            }
            components.queryItems = items
            guard let url = components.url else {
                throw MendError(
                    code: .Transport.invalidRequest, developerMessage: "The query does not fit in a URL.",
                    catalog: configuration.classifier.catalog)
            }
            return APIRequest(method: .get, url: url, headers: headers, options: options)
        }
        headers[.contentType] = "application/json"
        return APIRequest(
            method: .post, url: endpoint, headers: headers, body: Data(body.jsonText().utf8), options: options)
    }

    /// Builds a typed response from a parsed body (what ``send(_:as:errorPolicy:)`` returns under ``ErrorPolicy/all``).
    package static func decode<Value: Decodable & Sendable>(
        _ body: GraphQLResponseBody, as type: Value.Type, classifier: GraphQLErrorClassifier = GraphQLErrorClassifier()
    ) -> GraphQLResponse<Value> {
        response(from: body, as: type, classifier: classifier, attempts: 1)
    }

    static func response<Value: Decodable & Sendable>(
        from body: GraphQLResponseBody, as type: Value.Type, classifier: GraphQLErrorClassifier, attempts: Int
    ) -> GraphQLResponse<Value> {
        var data: Value?
        var failure: String?
        if let raw = body.data, raw != .null {
            do {
                data = try JSONDecoder().decode(Value.self, from: Data(raw.jsonText().utf8))
            } catch {
                failure = Self.describe(error)
            }
        }
        return GraphQLResponse(
            data: data, rawData: body.data, errors: body.errors,
            classifiedErrors: body.errors.map { classifier.error(for: $0) }, extensions: body.extensions,
            nulledPaths: body.nulledPaths(), decodingFailure: failure, attempts: attempts)
    }

    private static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(error)" }
        switch decodingError {
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return "\(context.debugDescription) (at \(path.isEmpty ? "data" : path))"
        @unknown default:
            return "\(error)"
        }
    }
}

extension GraphQLClient {
    /// How a GraphQL client sends operations and reads their errors; retries, re-authentication and logging are the
    /// client's steps' business.
    public struct Configuration: Sendable {
        /// Whether queries go out as GET (cacheable); mutations always use POST.
        package var usesGETForQueries: Bool
        /// The default error policy (requests may override it).
        package var errorPolicy: ErrorPolicy
        /// Maps `extensions.code` to catalog codes; extend it with your server's codes.
        package var classifier: GraphQLErrorClassifier
        /// Responses larger than this are refused.
        package var maximumResponseBodySize: Int
        /// The time one operation may take, retries included; `nil` for the transport's default.
        package var timeout: Duration?
        /// The clock every wait and deadline of the client's operations runs on; replaceable in tests.
        package var clock: PipelineClock

        /// Creates a configuration.
        public init(
            usesGETForQueries: Bool = false, errorPolicy: ErrorPolicy = .all,
            classifier: GraphQLErrorClassifier = GraphQLErrorClassifier(), maximumResponseBodySize: Int = 10 << 20,
            timeout: Duration? = nil, clock: PipelineClock = .system
        ) {
            self.usesGETForQueries = usesGETForQueries
            self.errorPolicy = errorPolicy
            self.classifier = classifier
            self.maximumResponseBodySize = maximumResponseBodySize
            self.timeout = timeout
            self.clock = clock
        }
    }
}
