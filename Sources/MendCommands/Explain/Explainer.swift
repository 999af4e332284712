public import Foundation
import HTTPTypes
public import MendCore
public import MendEmulator
import MendGraphAPI
public import MendGraphQL
import MendHTTP
import MendLogin

/// Explains an error response: which API shape it is, and the classified `MendError` it carries.
///
/// Pure: bytes, a status and headers in; an ``Explanation`` or an ``ExplainFailure`` out.
public struct Explainer: Sendable {
    /// The shape of the input.
    public enum Kind: String, Sendable, CaseIterable {
        /// Decide from the body (and the status, if given).
        case auto
        /// The Graph API's error envelope.
        case graph
        /// A GraphQL response.
        case graphql
        /// The REST status error space.
        case rest
        /// An OAuth 2.0 / OpenID Connect error answer (`{"error": "invalid_grant", …}`): the `oauth` space.
        case oauth
        /// A plain HTTP status (and any body).
        case http
    }

    /// The input.
    public struct Input: Sendable {
        /// The body bytes.
        public var body: Data
        /// The HTTP status, if known.
        public var status: Int?
        /// Response headers.
        public var headers: [(name: String, value: String)]
        /// The shape, or `.auto`.
        public var kind: Kind

        /// Creates an input.
        public init(body: Data, status: Int? = nil, headers: [(name: String, value: String)] = [], kind: Kind = .auto) {
            self.body = body
            self.status = status
            self.headers = headers
            self.kind = kind
        }
    }

    /// The largest input Mend explains.
    public var maximumInputSize: Int
    /// The catalog.
    public var catalog: ErrorCatalog
    /// The current time (for `Retry-After`).
    public var now: Date

    /// Creates an explainer.
    public init(maximumInputSize: Int = 1 << 20, catalog: ErrorCatalog = .everySpace, now: Date = Date()) {
        self.maximumInputSize = maximumInputSize
        self.catalog = catalog
        self.now = now
    }

    /// Explains `input`.
    public func explain(_ input: Input) throws(ExplainFailure) -> Explanation {
        if let status = input.status, !(100...599).contains(status) { throw .invalidStatus(status) }
        guard input.body.count <= maximumInputSize else { throw .inputTooLarge(limit: maximumInputSize) }
        let parsed = JSONValue.parse(input.body, maxBytes: maximumInputSize, duplicateMembers: .lastWins)
        let json = try? parsed.get()
        let kind = input.kind == .auto ? try detectKind(json: json, parsed: parsed, status: input.status) : input.kind
        switch kind {
        case .graphql:
            return try explainGraphQL(input, json: json)
        case .graph:
            return try decode(input, status: input.status ?? 400, decoder: GraphErrorDecoder(), kind: .graph)
        case .oauth:
            // RFC 6749 §5.2: 400, or 401 for a client that failed to authenticate.
            let status = input.status ?? (json?["error"]?.stringValue == "invalid_client" ? 401 : 400)
            return try decode(input, status: status, decoder: OAuthErrorDecoder(), kind: .oauth)
        case .rest:
            let status = input.status ?? json.flatMap(Self.restStatus(in:))
            guard let status else { throw .missingStatus(kind: .rest) }
            return try decode(input, status: status, decoder: RESTErrorDecoder(), kind: .rest)
        case .http, .auto:
            guard let status = input.status else { throw .missingStatus(kind: .http) }
            return try decode(input, status: status, decoder: HTTPStatusErrorDecoder(), kind: .http)
        }
    }

    private func detectKind(
        json: JSONValue?, parsed: Result<JSONValue, JSONValue.ParseFailure>, status: Int?
    ) throws(ExplainFailure) -> Kind {
        guard let json else {
            guard status != nil else {
                switch parsed {
                case .failure(.empty): throw .emptyInput
                case .failure(.notJSON): throw .notJSONWithoutStatus
                case .failure(.tooLarge(let limit)): throw .inputTooLarge(limit: limit)
                default: throw .malformedJSON
                }
            }
            return .rest
        }
        if GraphErrorEnvelope(json: json) != nil { return .graph }
        if json.objectValue != nil, json["data"] != nil || json["errors"]?.arrayValue != nil { return .graphql }
        if let name = json["error"]?.stringValue, MendError.Code.OAuth.code(forWireName: name) != nil { return .oauth }
        if status != nil { return .rest }
        if Self.restStatus(in: json) != nil { return .rest }
        throw .wrongShape
    }

    private static func restStatus(in json: JSONValue) -> Int? {
        let code = (json["status"] ?? json)["code"]?.intValue ?? json["error"]?["code"]?.intValue
        guard let code, code == 100 || (400...599).contains(code) else { return nil }
        return code
    }

    private func context() -> ErrorDecodingContext {
        ErrorDecodingContext(catalog: catalog, maximumBodySize: maximumInputSize, now: now)
    }

    private func response(status: Int, headers: [(name: String, value: String)]) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return HTTPResponse(status: .init(code: status), headerFields: fields)
    }

    private func decode(
        _ input: Input, status: Int, decoder: some ErrorDecoder, kind: Kind
    ) throws(ExplainFailure) -> Explanation {
        let response = response(status: status, headers: input.headers)
        guard let error = decoder.decodeError(response: response, body: input.body, context: context()) else {
            throw .notAnError
        }
        return Explanation(kind: kind, error: error, graphQLErrors: [])
    }

    private func explainGraphQL(_ input: Input, json: JSONValue?) throws(ExplainFailure) -> Explanation {
        let status = input.status ?? 200
        guard let json else {
            return try decode(input, status: status, decoder: HTTPStatusErrorDecoder(), kind: .http)
        }
        let body: GraphQLResponseBody
        do {
            body = try GraphQLResponseBody(json: json)
        } catch {
            throw .wrongShape
        }
        let classifier = GraphQLErrorClassifier(catalog: catalog)
        let items = body.errors.map { (error: $0, mendError: classifier.error(for: $0)) }
        guard var primary = items.first?.mendError else {
            // No GraphQL errors: an HTTP failure status still is an execution error.
            if !(200..<300).contains(status) {
                return try decode(input, status: status, decoder: HTTPStatusErrorDecoder(), kind: .http)
            }
            throw .notAnError
        }
        if items.count > 1 || !body.hasNoData {
            // Several errors, or partial data: the response as a whole "has errors"; its category is the most
            // actionable of its errors (recoverable, then transient, then other).
            let ranked = items.map(\.mendError).min { Self.rank($0.category) < Self.rank($1.category) } ?? primary
            var whole = MendError(
                code: .GraphQL.responseHasErrors,
                developerMessage: "The response carried \(items.count) GraphQL error(s)"
                    + (body.hasNoData ? " and no data." : " and partial data."),
                catalog: catalog)
            whole.override(.mostActionable(ranked.entry, hasPartialData: !body.hasNoData))
            whole.requestedPermissions = ranked.requestedPermissions
            whole.notBefore = ranked.notBefore
            whole.additionalMessages = items.map { item in
                (item.error.pathText.map { "\($0): " } ?? "") + item.error.message
            }
            primary = whole
        }
        let headers = input.headers
        var excerptContext = context()
        excerptContext.expectsJSON = true
        primary.attach(
            response: response(status: status, headers: headers), body: input.body, json: json, context: excerptContext)
        return Explanation(kind: .graphql, error: primary, graphQLErrors: items.map { ($0.error, $0.mendError) })
    }

    private static func rank(_ category: MendError.Category) -> Int {
        switch category {
        case .recoverable: 0
        case .transient: 1
        case .other: 2
        }
    }
}

/// What ``Explainer`` found.
public struct Explanation: Sendable {
    /// The shape the input had.
    public var kind: Explainer.Kind
    /// The error the input carries (for a GraphQL response with several errors or partial data, the response's).
    public var error: MendError
    /// For GraphQL responses: each error and its classification, in order.
    public var graphQLErrors: [(error: GraphQLError, mendError: MendError)]
}

/// Why ``Explainer`` could not explain an input.
public enum ExplainFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input was empty.
    case emptyInput
    /// The input was larger than the limit.
    case inputTooLarge(limit: Int)
    /// The input is not JSON and no status was given to explain it as a plain HTTP response.
    case notJSONWithoutStatus
    /// The input starts like JSON but is invalid or truncated.
    case malformedJSON
    /// The JSON is neither a Graph error, a GraphQL response nor a REST error.
    case wrongShape
    /// The kind needs a status and none was given or found in the body.
    case missingStatus(kind: Explainer.Kind)
    /// The status is not an HTTP status.
    case invalidStatus(Int)
    /// The response is a success: there is no error to explain.
    case notAnError

    /// A stable, readable rendering.
    public var description: String {
        switch self {
        case .emptyInput: "The input is empty. Give a response body as an argument, with --file, or on standard input."
        case .inputTooLarge(let limit): "The input is larger than \(limit) bytes; give the error body only."
        case .notJSONWithoutStatus:
            "The input is not JSON. To explain an HTML or text response, give its status with --status."
        case .malformedJSON:
            "The input is invalid or truncated JSON. To explain it as a broken response, give its status with --status."
        case .wrongShape:
            "The JSON is not a Graph error body ({\"error\":{…}}), a GraphQL response ({\"data\"…, \"errors\":[…]}) or a REST error ({\"code\", \"message\", \"referenceId\"}). Give --status to explain it as a plain HTTP response."
        case .missingStatus(let kind): "Explaining a \(kind.rawValue) response needs its HTTP status: give --status."
        case .invalidStatus(let status): "\(status) is not an HTTP status (100–599)."
        case .notAnError: "The response is a success: there is no error to explain."
        }
    }
}
