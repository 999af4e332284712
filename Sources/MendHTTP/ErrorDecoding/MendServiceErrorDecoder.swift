public import Foundation
public import HTTPTypes
public import MendCore

/// Decodes the errors of Mend's own services (`mend-server`): the Mend error JSON shape
/// (`MendError.wireBody`), which carries the domain, code and classification the service determined —
/// an upstream provider outage stays transient, a bad authorization code stays `other`.
///
/// Anything else falls back to ``HTTPStatusErrorDecoder``; the reference id comes from the body or `X-Request-Id`.
public struct MendServiceErrorDecoder: ErrorDecoder {
    /// Creates the decoder.
    public init() {}

    /// Returns the error the response carries, or `nil` for a success.
    public func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        guard response.status.kind != .successful else {
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        let decoded = DecodedBody(body, limit: context.maximumBodySize)
        guard let json = decoded.json, var error = MendError(wireBody: json, catalog: context.catalog) else {
            return HTTPStatusErrorDecoder().decodeError(response: response, body: body, context: context)
        }
        let referenceID = error.referenceID
        error.referenceID = nil
        error.attach(response: response, body: body, json: json, context: context)
        if let referenceID { error.referenceID = referenceID }
        return error
    }
}
