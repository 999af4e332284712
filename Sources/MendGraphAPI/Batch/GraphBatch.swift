public import Foundation
public import HTTPTypes
public import MendCore
public import MendHTTP

/// Up to 50 Graph requests sent in one HTTP call, with per-item results and errors.
///
/// Items may depend on earlier ones by name: `GraphRequest(path: "{result=friends:$.data.0.id}")`.
public struct GraphBatch: Sendable {
    /// The provider's limit.
    public static let maximumSize = 50

    /// One item.
    public struct Item: Sendable {
        /// The request.
        public var request: GraphRequest
        /// The name later items refer to (`{result=name:$.jsonpath}`).
        public var name: String?
        /// Whether the provider omits this item's response when it succeeds (named items default to yes).
        public var omitResponseOnSuccess: Bool?

        /// Creates an item.
        public init(_ request: GraphRequest, name: String? = nil, omitResponseOnSuccess: Bool? = nil) {
            self.request = request
            self.name = name
            self.omitResponseOnSuccess = omitResponseOnSuccess
        }
    }

    /// The items, in order.
    public var items: [Item]

    /// Creates a batch.
    public init(_ items: [Item]) { self.items = items }

    /// Creates a batch of independent requests.
    public init(requests: [GraphRequest]) { self.items = requests.map { Item($0) } }

    /// The `batch` parameter's JSON.
    func wireJSON() -> String {
        let objects: [JSONValue] = items.map { item in
            var object: [String: JSONValue] = [
                "method": .string(item.request.method.rawValue), "relative_url": .string(item.request.relativeURL),
            ]
            if item.request.method == .post {
                object["body"] = .string(FormEncoding.encode(item.request.allParameters))
            }
            if let name = item.name { object["name"] = .string(name) }
            if let omit = item.omitResponseOnSuccess { object["omit_response_on_success"] = .bool(omit) }
            return .object(object)
        }
        return JSONValue.array(objects).jsonText()
    }
}

/// One item's outcome.
public enum GraphBatchResult: Sendable {
    /// The item succeeded.
    case success(status: Int, headers: [String: String], body: JSONValue)
    /// The item failed with a classified error.
    case failure(MendError)
    /// The provider omitted the item's response (a named item that succeeded).
    case omitted

    /// The body of a success.
    public var body: JSONValue? {
        if case .success(_, _, let body) = self { return body }
        return nil
    }

    /// The error of a failure.
    public var error: MendError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension GraphClient {
    /// Sends a batch in one HTTP call (or one per 50 items when `splitting`), returning one result per item.
    ///
    /// Batches are never recovered automatically (a token error comes back per item), and they are retried only
    /// when every item reads. More than 50 items without `splitting` is an error before anything is sent; items
    /// that refer to others by name cannot be split.
    public func send(_ batch: GraphBatch, splitting: Bool = false) async throws -> [GraphBatchResult] {
        guard !batch.items.isEmpty else { return [] }
        guard batch.items.count > GraphBatch.maximumSize else { return try await sendOne(batch) }
        guard splitting else {
            throw MendError(
                code: .Graph.invalidParameter,
                developerMessage:
                    "A batch holds at most \(GraphBatch.maximumSize) requests; this one has \(batch.items.count). "
                    + "Split it, or send it with splitting: true.", catalog: catalog)
        }
        guard batch.items.allSatisfy({ $0.name == nil }) else {
            throw MendError(
                code: .Graph.invalidParameter,
                developerMessage: "A batch whose items refer to each other by name cannot be split.", catalog: catalog)
        }
        var results: [GraphBatchResult] = []
        var start = 0
        while start < batch.items.count {
            let end = min(start + GraphBatch.maximumSize, batch.items.count)
            results += try await sendOne(GraphBatch(Array(batch.items[start..<end])))
            start = end
        }
        return results
    }

    /// The completion-handler flavour of ``send(_:splitting:)``: `completion` is called exactly once.
    @discardableResult
    public func send(
        _ batch: GraphBatch, splitting: Bool = false,
        completion: @escaping @Sendable (Completion<[GraphBatchResult]>) -> Void
    ) -> RequestHandle {
        RequestHandle.run({ try await self.send(batch, splitting: splitting) }, completion: completion)
    }

    private func sendOne(_ batch: GraphBatch) async throws -> [GraphBatchResult] {
        let readOnly = batch.items.allSatisfy { $0.request.method == .get }
        let request = GraphRequest(
            path: "", parameters: ["batch": batch.wireJSON(), "include_headers": "true"], method: .post,
            onTokenError: .invalidate)
        var apiRequest = try apiRequest(for: request)
        apiRequest.options.allowsRetry = readOnly
        let response = try await client.send(apiRequest)
        let items: [JSONValue]
        do {
            guard let array = try response.json().arrayValue else { throw CancellationError() }
            items = array
        } catch {
            var mendError = MendError(
                code: .Transport.malformedResponse, developerMessage: "The batch response is not a list of results.",
                catalog: catalog)
            mendError.attempts = response.attempts
            throw mendError
        }
        guard items.count == batch.items.count else {
            throw MendError(
                code: .Transport.malformedResponse,
                developerMessage: "The batch response has \(items.count) results for \(batch.items.count) requests.",
                catalog: catalog)
        }
        let decoder = GraphErrorDecoder(catalog: { [cache = errorConfiguration, now = configuration.clock.now] in
            cache.catalog(now: now())
        })
        let context = ErrorDecodingContext(
            catalog: catalog, requestIDHeader: GraphAPI.traceIDHeader, now: configuration.clock.now())
        return items.map { item in Self.result(of: item, decoder: decoder, context: context) }
    }

    static func result(
        of item: JSONValue, decoder: GraphErrorDecoder, context: ErrorDecodingContext
    ) -> GraphBatchResult {
        guard let object = item.objectValue else { return .omitted }
        let status = object["code"]?.intValue ?? 0
        var fields = HTTPFields()
        var headers: [String: String] = [:]
        for header in object["headers"]?.arrayValue ?? [] {
            guard let name = header["name"]?.stringValue, let value = header["value"]?.stringValue,
                let fieldName = HTTPField.Name(name)
            else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
            headers[name.lowercased()] = value
        }
        let bodyText = object["body"]?.stringValue ?? ""
        let body = Data(bodyText.utf8)
        let head = HTTPResponse(status: .init(code: status), headerFields: fields)
        if let error = decoder.decodeError(response: head, body: body, context: context) {
            return .failure(error)
        }
        return .success(
            status: status, headers: headers,
            body: (try? JSONValue.parse(body, duplicateMembers: .lastWins).get()) ?? .null)
    }
}
