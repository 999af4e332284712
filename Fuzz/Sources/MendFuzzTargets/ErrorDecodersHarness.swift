import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP

/// What `mend explain` reads, through the libraries' decoders: the Graph envelope (`GraphErrorDecoder`,
/// `GraphErrorEnvelope`), the REST status space (`RESTErrorDecoder`), the plain status (`HTTPStatusErrorDecoder`),
/// Mend's own services (`MendServiceErrorDecoder`) and GraphQL errors (`GraphQLResponseBody`,
/// `GraphQLErrorClassifier`), on one response written as text (see ``ResponseInput``).
///
/// Invariants: a non-2xx response is never a success; each decoder's errors stay in its domains; waits are clamped;
/// messages are bounded; the request's secret never reaches the excerpt; the wire shape round-trips; a permission
/// error's permissions are words of its message.
enum ErrorDecodersHarness {
    static let secret = "EAAFuzzRequestTokenZZ9"
    static let redactor = Redactor(secrets: [secret])
    /// Small enough that the fuzzer reaches "too large" within `-max_len`.
    static let maximumBodySize = 8 << 10

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let input = ResponseInput(bytes)
        let response = input.response
        let context = ErrorDecodingContext(
            catalog: fuzzCatalog, redactor: redactor, maximumBodySize: maximumBodySize, now: fuzzNow)
        let decoders: [(name: String, decoder: any ErrorDecoder, domains: Set<MendError.Domain>?)] = [
            ("GraphErrorDecoder", GraphErrorDecoder(), [.graph, .http, .transport]),
            ("RESTErrorDecoder", RESTErrorDecoder(), [.rest, .http, .transport]),
            ("HTTPStatusErrorDecoder", HTTPStatusErrorDecoder(), [.http, .transport]),
            ("MendServiceErrorDecoder", MendServiceErrorDecoder(), nil),
        ]
        for (name, decoder, domains) in decoders {
            let error = decoder.decodeError(response: response, body: input.body, context: context)
            if response.status.kind != .successful {
                invariant(error != nil, "\(name) called a \(input.status) a success")
            }
            if let error {
                checkDecodedError(error, by: name, allowedDomains: domains, redactor: redactor, secret: secret)
            }
        }
        // The shapes `mend explain` detects, read as it reads them.
        guard case .success(let json) = JSONValue.parse(input.body, maxBytes: maximumBodySize) else { return }
        if let envelope = GraphErrorEnvelope(json: json) {
            let permissions = envelope.missingPermissions
            invariant(Set(permissions).count == permissions.count, "duplicate permissions: \(permissions)")
            for permission in permissions {
                invariant(envelope.message?.contains(permission) == true, "\(permission) is not in the message")
            }
            let error = GraphErrorDecoder().error(
                for: envelope, json: json, response: response, body: input.body, context: context)
            invariant(error.domain == .graph && error.code.rawValue == envelope.code, "the envelope's code changed")
            checkDecodedError(
                error, by: "GraphErrorDecoder.error(for:)", allowedDomains: [.graph], redactor: redactor, secret: secret
            )
        }
        if let body = try? GraphQLResponseBody(json: json) {
            let classifier = GraphQLErrorClassifier()
            for graphQLError in body.errors {
                var error = classifier.error(for: graphQLError, redactor: redactor)
                error.attach(response: response, body: input.body, json: json, context: context)
                checkDecodedError(
                    error, by: "GraphQLErrorClassifier", allowedDomains: [.graphQL], redactor: redactor, secret: secret)
            }
        }
    }
}
