public import Foundation
public import HTTPTypes
public import Logging
public import MendCore

/// A client for BaaS-style REST APIs: typed JSON requests and responses, and the REST status error space.
///
/// Errors come back as `MendError`s of the `MendError.Domain.rest` domain (status → named
/// error), with `referenceId` from the body or the request-id header, `additionalMessages` from field errors, and
/// reference id `-1` (`MendError.referenceIDOrNone`) for errors that never reached the API.
///
/// ```swift
/// let rest = RESTClient(baseURL: URL(string: "https://api.example/v1/")!, transport: transport)
/// let note: Note = try await rest.get("objects/note/42")
/// ```
public struct RESTClient: Sendable {
    /// The pipeline the client sends through.
    package let client: APIClient
    /// The base URL that paths are resolved against.
    package let baseURL: URL
    /// Encodes request bodies.
    package let encoder: JSONEncoder
    /// Decodes response bodies.
    package let decoder: JSONDecoder

    /// Creates a client over a new pipeline that decodes errors with ``RESTErrorDecoder``.
    public init(
        baseURL: URL, transport: any HTTPTransport,
        configuration: APIClient.Configuration = APIClient.Configuration(
            errorDecoder: RESTErrorDecoder(), catalog: .rest),
        steps: [any ClientMiddleware] = .standard(),
        logger: Logger = Logger(label: "mend.rest", factory: { _ in SwiftLogNoOpLogHandler() }),
        encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()
    ) {
        self.init(
            baseURL: baseURL,
            client: APIClient(transport: transport, configuration: configuration, steps: steps, logger: logger),
            encoder: encoder, decoder: decoder)
    }

    /// Creates a client over an existing pipeline.
    package init(
        baseURL: URL, client: APIClient, encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()
    ) {
        self.baseURL = baseURL
        self.client = client
        self.encoder = encoder
        self.decoder = decoder
    }

    /// A body-less value for requests and responses without content.
    public struct Empty: Codable, Sendable {
        /// Creates an empty value.
        public init() {}
    }

    /// Sends a request and decodes the response.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path relative to `baseURL` (`objects/note/42`).
    ///   - query: Query parameters.
    ///   - body: A JSON body to encode, if any.
    ///   - options: How the pipeline treats the request (an idempotency key makes a POST retryable).
    ///   - type: The type the response body decodes into.
    public func send<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String] = [:],
        body: (any Encodable & Sendable)? = nil,
        options: RequestOptions = RequestOptions(), as type: Response.Type = Response.self
    ) async throws -> Response {
        let request = try makeRequest(method, path, query: query, body: body, options: options)
        let response = try await client.send(request)
        if Response.self == Empty.self, let empty = Empty() as? Response { return empty }
        return try response.decode(Response.self, decoder: decoder)
    }

    /// `GET path`.
    public func get<Response: Decodable & Sendable>(
        _ path: String, query: [String: String] = [:], as type: Response.Type = Response.self
    ) async throws -> Response {
        try await send(.get, path, query: query, as: type)
    }

    /// `POST path` with a JSON body. Not retried unless `idempotencyKey` is given.
    public func post<Response: Decodable & Sendable>(
        _ path: String, body: some Encodable & Sendable, idempotencyKey: String? = nil,
        as type: Response.Type = Response.self
    ) async throws -> Response {
        try await send(.post, path, body: body, options: RequestOptions(idempotencyKey: idempotencyKey), as: type)
    }

    /// `PUT path` with a JSON body.
    public func put<Response: Decodable & Sendable>(
        _ path: String, body: some Encodable & Sendable, as type: Response.Type = Response.self
    ) async throws -> Response {
        try await send(.put, path, body: body, as: type)
    }

    /// `DELETE path`.
    public func delete(_ path: String) async throws {
        let _: Empty = try await send(.delete, path, options: RequestOptions(expectsJSON: false))
    }

    /// The success/failure handler flavour of ``send(_:_:query:body:options:as:)``: exactly one of the three
    /// handlers is called, exactly once.
    @discardableResult
    public func send<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String] = [:],
        body: (any Encodable & Sendable)? = nil,
        options: RequestOptions = RequestOptions(), as type: Response.Type = Response.self,
        success: @escaping @Sendable (Response) -> Void,
        failure: @escaping @Sendable (MendError) -> Void,
        cancelled: @escaping @Sendable () -> Void = {}
    ) -> RequestHandle {
        RequestHandle.run({ try await self.send(method, path, query: query, body: body, options: options, as: type) }) {
            switch $0 {
            case .success(let value): success(value)
            case .failure(let error): failure(error)
            case .cancelled: cancelled()
            }
        }
    }

    func makeRequest(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String], body: (any Encodable & Sendable)?,
        options: RequestOptions
    ) throws(MendError) -> APIRequest {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard
            var components = URLComponents(
                url: baseURL.appendingPathComponent(trimmed), resolvingAgainstBaseURL: false),
            trimmed.rangeOfCharacter(from: .whitespacesAndNewlines) == nil
        else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The path '\(path)' does not form a URL.",
                catalog: client.configuration.catalog)
        }
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        guard let url = components.url else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The path '\(path)' does not form a URL.",
                catalog: client.configuration.catalog)
        }
        var headers = HTTPFields()
        headers[.accept] = "application/json"
        var data: Data?
        if let body {
            do {
                data = try encoder.encode(body)
            } catch {
                throw MendError(
                    code: .Transport.invalidRequest,
                    developerMessage: "The request body does not encode as JSON: \(error)",
                    catalog: client.configuration.catalog)
            }
            headers[.contentType] = "application/json"
        }
        var options = options
        if options.urlTemplate == nil { options.urlTemplate = Self.urlTemplate(base: baseURL.path, path: trimmed) }
        return APIRequest(method: method, url: url, headers: headers, body: data, options: options)
    }

    /// The low-cardinality template of a REST path, for traces and metrics (`url.template`, and the span's name):
    /// `/api/v2/objects/{id}/comments` for `objects/42/comments` under `https://host/api/v2`. The base URL's path is
    /// kept; in the request's path a segment with a digit (`42`, a UUID, `act_1`) but not a version (`v2`, `v1.1`),
    /// an `@` or a `%` (an e-mail, an encoded value), or longer than 40 characters is an id; the others are the
    /// API's own names. A path with names of its own (`/users/alice`) passes its template in
    /// `RequestOptions(urlTemplate:)`.
    package static func urlTemplate(base: String, path: String) -> String {
        let segments = path.prefix { $0 != "?" }.split(separator: "/").map { segment -> Substring in
            let isVersion =
                segment.first == "v" && segment.count > 1
                && segment.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
                && segment.dropFirst().first?.isNumber == true
            let isID =
                segment.count > 40 || segment.contains("@") || segment.contains("%")
                || (segment.contains(where: \.isNumber) && !isVersion)
            return isID ? "{id}" : segment
        }
        return "/" + (base.split(separator: "/") + segments).joined(separator: "/")
    }
}
