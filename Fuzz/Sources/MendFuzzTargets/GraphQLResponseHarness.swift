import Foundation
import HTTPTypes
import MendCore
import MendGraphQL
import MendHTTP

/// `GraphQLResponseDecoder` (the GraphQL client's pipeline decoder) and `GraphQLResponseBody`, on one response written
/// as text (see ``ResponseInput``).
///
/// Invariants: a 5xx is never a success; a 2xx GraphQL response without errors passes; an error that carries the
/// response (``GraphQLPayload``) carries this status and stands for a re-authentication or a transient, data-less
/// response; the error keeps the usual invariants; null paths are paths of the errors.
enum GraphQLResponseHarness {
    static let secret = ErrorDecodersHarness.secret
    static let redactor = ErrorDecodersHarness.redactor
    static let maximumBodySize = 8 << 10

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let input = ResponseInput(bytes)
        let context = ErrorDecodingContext(
            catalog: fuzzCatalog, redactor: redactor, maximumBodySize: maximumBodySize, now: fuzzNow)
        let error = GraphQLResponseDecoder().decodeError(response: input.response, body: input.body, context: context)
        if input.status >= 500 { invariant(error != nil, "a \(input.status) passed as a success") }
        let parsed = JSONValue.parse(input.body, maxBytes: maximumBodySize)
        let body = (try? parsed.get()).flatMap { try? GraphQLResponseBody(json: $0) }
        if let body, body.errors.isEmpty, (200..<300).contains(input.status) {
            invariant(error == nil, "a 2xx GraphQL response without errors failed: \(String(describing: error))")
        }
        if let error {
            checkDecodedError(
                error, by: "GraphQLResponseDecoder", allowedDomains: nil, redactor: redactor, secret: secret)
            if let payload = error.underlying as? GraphQLPayload {
                invariant(payload.status == input.status, "the payload's status changed")
                invariant(!payload.body.errors.isEmpty, "a payload without errors")
                invariant(
                    error.recovery.action == .reauthenticate
                        || (payload.body.hasNoData && error.category == .transient),
                    "a GraphQL response became the error \(error)")
                _ = payload.description
            }
        }
        guard let body else { return }
        let errorPaths = Set(body.errors.compactMap(\.pathText))
        for path in body.nulledPaths() where path != "data" {
            invariant(
                errorPaths.contains { $0 == path || $0.hasPrefix(path + ".") || $0.hasPrefix(path + "[") },
                "the null path \(path) is no prefix of an error's path")
        }
    }
}
