public import Foundation
public import HTTPTypes
public import Logging
public import MendCore
public import MendHTTP

/// A Graph-style API client (Facebook-compatible) whose errors always say what to do.
///
/// Every call goes through MendHTTP's pipeline: transient errors are retried with backoff within the retry budget,
/// a throttle holds further calls to the app until the provider's wait has passed, and a token error (102, 190)
/// goes to the client's `CredentialProvider` — invalidated, then renewed (MendLogin's `SessionCredentials` refreshes
/// the session, else logs in again) — before the request is replayed once. Every completion fires exactly once.
///
/// ```swift
/// let graph = GraphClient(transport: AsyncHTTPClientTransport(), credentials: StaticCredential(token: token))
/// let me: Profile = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"]), as: Profile.self)
/// ```
public final class GraphClient: Sendable {
    /// The configuration.
    package let configuration: Configuration
    /// The pipeline the client sends through.
    package let client: APIClient
    let usage: GraphUsageStep?
    let errorConfiguration: ErrorConfigurationCache

    /// Creates a client that sends through `steps`, outermost first.
    ///
    /// ```swift
    /// let graph = GraphClient(
    ///     transport: transport, configuration: configuration,
    ///     steps: .graph(for: configuration, credentials: credentials, retryPolicy: .never))
    /// ```
    ///
    /// - Parameters:
    ///   - transport: The transport.
    ///   - configuration: Base URL, version, app, catalog, token placement, error configuration.
    ///   - steps: The pipeline's steps; `.graph(for:credentials:…)` composes the usual ones (usage, then Mend's
    ///     standard steps with the Graph's token errors as credential rejections).
    ///   - logger: Where the steps' logging goes.
    public init(
        transport: any HTTPTransport, configuration: Configuration = Configuration(), steps: [any ClientMiddleware],
        logger: Logger = Logger(label: "mend.graph", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        let cache = ErrorConfigurationCache(lifetime: configuration.errorConfigurationLifetime)
        self.errorConfiguration = cache
        let usage = steps.lazy.compactMap { $0 as? GraphUsageStep }.first
        self.usage = usage
        usage?.tracker.errorsAreRecordedByTheDecoder()
        let now = configuration.clock.now
        self.client = APIClient(
            transport: transport,
            configuration: APIClient.Configuration(
                errorDecoder: GraphErrorDecoder(catalog: { cache.catalog(now: now()) }, usageSink: usage?.tracker),
                catalog: configuration.catalog,
                maximumResponseBodySize: configuration.maximumResponseBodySize,
                requestIDHeader: GraphAPI.traceIDHeader, clock: configuration.clock,
                observer: configuration.observer, isThirdParty: true),
            steps: steps, logger: logger)
    }

    /// Creates a client with the usual steps: a token error invalidates the token and renews it through
    /// `credentials` before the request is replayed once, transient errors are retried, throttles hold further calls
    /// to the app.
    ///
    /// - Parameters:
    ///   - transport: The transport.
    ///   - configuration: Base URL, version, app, catalog, token placement, error configuration.
    ///   - credentials: The user's token and how it is renewed; `nil` sends requests without one (or with each
    ///     request's override).
    ///   - lastKnownGood: Where the user's last good answers are kept, to stand in for transient failures of the
    ///     requests that ask for it (``GraphRequest/maxStale``); `nil`: nowhere.
    ///   - logger: Where the steps' logging goes.
    public convenience init(
        transport: any HTTPTransport, configuration: Configuration = Configuration(),
        credentials: (any CredentialProvider)? = nil, lastKnownGood: LastKnownGood? = nil,
        logger: Logger = Logger(label: "mend.graph", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(
            transport: transport, configuration: configuration,
            steps: .graph(for: configuration, credentials: credentials, lastKnownGood: lastKnownGood), logger: logger)
    }

    /// Whether `error` is a token error that renewing the token can help: 102 or 190 with any subcode, when
    /// recoverable (190/492, a session the provider locked, is not). The Graph steps count these as rejections of
    /// the client's credential.
    public static func isTokenError(_ error: MendError) -> Bool {
        (error.code == .Graph.sessionInvalid || error.code == .Graph.accessTokenInvalid)
            && error.category == .recoverable
    }

    /// The catalog errors are classified with now: the provider's error configuration merged over
    /// ``Configuration-swift.struct/catalog`` while it is fresh, else that catalog.
    package var catalog: ErrorCatalog {
        errorConfiguration.catalog(now: configuration.clock.now()) ?? configuration.catalog
    }

    /// The latest rate-limit usage the provider reported.
    public var latestUsage: GraphUsage? { usage?.latestUsage }

    /// Sends `request` and returns the raw response.
    public func send(_ request: GraphRequest) async throws -> GraphResponse {
        try await loadErrorConfigurationIfDue()
        let response = try await client.send(try apiRequest(for: request))
        return GraphResponse(response)
    }

    /// Sends `request` and decodes the response into `type`.
    public func send<Value: Decodable & Sendable>(_ request: GraphRequest, as type: Value.Type) async throws -> Value {
        try await send(request).decode(type)
    }

    /// The completion-handler flavour: `completion` is called exactly once.
    @discardableResult
    public func send(
        _ request: GraphRequest, completion: @escaping @Sendable (Completion<GraphResponse>) -> Void
    )
        -> RequestHandle
    {
        RequestHandle.run({ try await self.send(request) }, completion: completion)
    }

    /// Fetches several objects by id in one call (`?ids=a,b,c`); the provider counts each id as a call.
    public func objects<Value: Decodable & Sendable>(
        ids: [String], fields: [String] = [], as type: Value.Type
    ) async throws -> [String: Value] {
        guard !ids.isEmpty else { return [:] }
        let request = GraphRequest(path: "", parameters: ["ids": ids.joined(separator: ",")], fields: fields)
        return try await send(request, as: [String: Value].self)
    }

    // MARK: Building requests

    func url(version: String?, path: String, query: [(name: String, value: String)]) throws(MendError) -> URL {
        let base = configuration.graphURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let trimmedPath = path.drop { $0 == "/" }
        var text = "\(base)/\(version ?? configuration.version)/\(trimmedPath)"
        let encoded = FormEncoding.encode(query)
        if !encoded.isEmpty { text += "?\(encoded)" }
        guard let url = URL(string: text), url.host != nil else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "'\(path)' does not form a Graph URL.",
                catalog: catalog)
        }
        return url
    }

    func apiRequest(for request: GraphRequest) throws(MendError) -> APIRequest {
        var headers = HTTPFields()
        headers[.accept] = "application/json"
        var query = request.method == .post ? [] : request.allParameters
        var body: Data?
        if request.method == .post {
            var form = request.allParameters
            if let proof = try appSecretProofParameter(for: request) { form.append(proof) }
            body = Data(FormEncoding.encode(form).utf8)
            headers[.contentType] = "application/x-www-form-urlencoded"
        } else if let proof = try appSecretProofParameter(for: request) {
            query.append(proof)
        }
        let options = RequestOptions(
            idempotencyKey: request.idempotencyKey,
            credentialRejection: request.onTokenError,
            credentialOverride: request.tokenOverride.map {
                Credential(token: $0, placement: configuration.tokenPlacement)
            },
            urlTemplate: Self.urlTemplate(version: request.version ?? configuration.version, path: request.path),
            maxStale: request.maxStale)
        return APIRequest(
            method: request.method, url: try url(version: request.version, path: request.path, query: query),
            headers: headers, body: body, options: options)
    }

    /// The low-cardinality template of a Graph path, for traces and metrics: `/v21.0/{id}/feed` for
    /// `/v21.0/10157/feed`. A segment of digits and underscores after an optional prefix (`10157`, `10157_4402`,
    /// `act_10157`) is an id; the other names (`me`, `feed`, `debug_token`) are the API's own.
    package static func urlTemplate(version: String, path: String) -> String {
        let segments = path.prefix { $0 != "?" }.split(separator: "/").map { segment -> Substring in
            let core = segment.drop(while: \.isLetter).drop { $0 == "_" }
            let isID = core.contains(where: \.isNumber) && core.allSatisfy { $0.isNumber || $0 == "_" }
            return isID || segment.count > 40 ? "{id}" : segment
        }
        return "/" + ([Substring(version)] + segments).joined(separator: "/")
    }

    /// `appsecret_proof` for server-side calls, computed by the server's own closure (no client stores a secret).
    private func appSecretProofParameter(for request: GraphRequest) throws(MendError) -> (name: String, value: String)?
    {
        guard let prove = configuration.appSecretProof, let token = request.tokenOverride
        else { return nil }
        return ("appsecret_proof", prove(token))
    }

    // MARK: Error configuration

    /// Fetches the provider's error configuration (`ios_sdk_error_categories` on the app node) and merges it over
    /// the configured catalog, for `errorConfigurationLifetime`. Failures keep the
    /// configured catalog and are returned.
    @discardableResult
    public func refreshErrorConfiguration() async throws -> ErrorCatalog {
        guard let appID = configuration.appID else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The error configuration needs the app id.",
                catalog: catalog)
        }
        let request = GraphRequest(
            path: appID, fields: ["ios_sdk_error_categories"], tokenOverride: configuration.errorConfigurationToken,
            onTokenError: .invalidate)
        let response = try await client.send(try apiRequest(for: request))
        let merged: ErrorCatalog
        do {
            merged = try configuration.catalog.merging(providerConfiguration: try response.json())
        } catch let error as MendError {
            throw error
        } catch {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The error configuration: \(error)",
                catalog: catalog)
        }
        errorConfiguration.store(merged, now: configuration.clock.now())
        return merged
    }

    /// Fetches the error configuration when it is due — once for any number of concurrent first calls.
    private func loadErrorConfigurationIfDue() async throws {
        guard configuration.fetchesErrorConfiguration else { return }
        await errorConfiguration.refreshIfStale(now: configuration.clock.now()) {
            do {
                try await self.refreshErrorConfiguration()
            } catch {
                // Keep classifying with the configured catalog; try again after the lifetime.
                self.errorConfiguration.store(self.configuration.catalog, now: self.configuration.clock.now())
            }
        }
        try Task.checkCancellation()
    }
}

/// A Graph response: status, headers, the JSON body, and how many tries it took — the pipeline's `APIResponse`,
/// read the Graph way.
public struct GraphResponse: Sendable {
    /// The response as the pipeline returned it.
    package var response: APIResponse

    /// Wraps a pipeline response.
    package init(_ response: APIResponse) { self.response = response }

    /// The HTTP status.
    public var status: Int { response.head.status.code }
    /// The header fields.
    public var headers: HTTPFields { response.head.headerFields }
    /// The body.
    public var body: Data { response.body }
    /// How many times the request was sent.
    public var attempts: Int { response.attempts }
    /// Where the answer came from: the network, or the client's response store.
    public var source: APIResponse.Source { response.source }
    /// Why the answer is stale and how old, when a stored answer stood in for a transient failure
    /// (``GraphRequest/maxStale``).
    public var staleness: Staleness? { response.staleness }

    /// The body as JSON.
    public func json() throws(MendError) -> JSONValue { try response.json() }

    /// The body decoded into `type`.
    public func decode<Value: Decodable>(_ type: Value.Type) throws(MendError) -> Value { try response.decode(type) }
}
