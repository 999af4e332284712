public import Foundation
public import HTTPTypes
public import MendCore
public import MendHTTP

/// The pipeline's error decoder for GraphQL: tells execution errors (no usable response) from GraphQL errors
/// (a response with `errors`, returned with its data).
///
/// - A 5xx, a non-JSON, truncated or oversized body, or JSON that is no GraphQL response is an execution error; so
///   is a 3xx or 4xx whose response has no errors (data comes with a 2xx, graphql-over-http): its status's error.
/// - A GraphQL response passes, errors and all — except when one of its errors calls for re-authentication
///   (`UNAUTHENTICATED`: nothing in the response can be trusted), or when it has no data and its most actionable
///   error is transient (`INTERNAL_SERVER_ERROR`). Then it becomes that error, so that the pipeline
///   re-authenticates once or retries (queries only), carrying the response along as ``GraphQLPayload`` so that
///   nothing the server said is lost.
public struct GraphQLResponseDecoder: ErrorDecoder {
    /// The GraphQL space.
    public var errorSpaces: [ErrorSpace] { [.graphQL] }

    /// Maps `extensions.code` to catalog codes.
    package var classifier: GraphQLErrorClassifier

    /// Creates the decoder.
    public init(classifier: GraphQLErrorClassifier = GraphQLErrorClassifier()) {
        self.classifier = classifier
    }

    /// Returns the execution error, or the error a data-less response stands for, or `nil`.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        let status = response.status.code
        // A success without an `errors` member needs no parse here (the client parses it once, for its data).
        if status < 300, body.count <= context.maximumBodySize, !Self.mentionsErrors(body) {
            let checked = DecodedBody(validating: body, limit: context.maximumBodySize)
            guard checked.isJSON else {
                return MendError.unreadableBody(checked, response: response, body: body, context: context)
            }
            return nil
        }
        let decoded = DecodedBody(body, limit: context.maximumBodySize)
        guard status < 500, let json = decoded.json, let graphQLBody = try? GraphQLResponseBody(json: json) else {
            if status < 300, case .json = decoded {
                var error = MendError(
                    code: .GraphQL.noData, developerMessage: "The response is JSON but not a GraphQL response.",
                    catalog: context.catalog)
                error.attach(response: response, body: body, json: decoded.json, context: context)
                return error
            }
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        guard !graphQLBody.errors.isEmpty else {
            // Data without errors is a success only with a 2xx (graphql-over-http); a 3xx or 4xx is its status's error.
            return status < 300
                ? nil : HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        let classified = graphQLBody.errors.map { classifier.error(for: $0, redactor: context.redactor) }
        let leading: MendError
        if let reauthentication = classified.first(where: { $0.recovery.action == .reauthenticate }) {
            leading = reauthentication
        } else if graphQLBody.hasNoData, let actionable = GraphQLResponseBody.mostActionable(classified),
            actionable.category == .transient, actionable.isAutomaticallyRetryable
        {
            leading = actionable
        } else {
            return nil
        }
        var error = leading
        error.attach(response: response, body: body, json: json, context: context)
        error.underlying = GraphQLPayload(body: graphQLBody, status: status)
        return error
    }
}

extension GraphQLResponseDecoder {
    static let errorsMember = Data("\"errors\"".utf8)

    /// Whether the body contains the text `"errors"` anywhere (a cheap test before parsing).
    static func mentionsErrors(_ body: Data) -> Bool {
        body.range(of: errorsMember) != nil
    }
}

/// A GraphQL response carried by the error it became in the pipeline, so that the client can still return it.
public struct GraphQLPayload: Error, Sendable, CustomStringConvertible {
    /// The response.
    public var body: GraphQLResponseBody
    /// Its HTTP status.
    public var status: Int

    /// The errors, one line each.
    public var description: String { GraphQLErrors(errors: body.errors, partialData: body.data).description }
}
