import Foundation
import HTTPTypes
import MendCore
import MendHTTP

/// The error decoder `mend explain` is: the API's shape read from the body (the Graph API's envelope, a GraphQL
/// answer, an OAuth token endpoint's error, a REST error), else the status alone. `mend proxy` records with it, so
/// that a recorded `_mend` is what `mend explain` says of the same answer — a proxy does not know which API it
/// carries, and a status-only classification made an expired Graph token (190/463) `http/400`.
struct ExplainingErrorDecoder: ErrorDecoder {
    /// Reads the answers; give the recording its catalog (`.everySpace` by default).
    var explainer = Explainer()

    func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        guard response.status.code >= 400 else { return nil }
        let headers = response.headerFields.map { (name: $0.name.canonicalName, value: $0.value) }
        return Self.read(explainer, body: body, status: response.status.code, headers: headers)
    }

    /// What `explainer` reads in an error answer: its shape's error, else its status's. The proxy's `_mend` and
    /// `mend explain --har` both read an answer with this one function.
    static func read(
        _ explainer: Explainer, body: Data, status: Int, headers: [(name: String, value: String)]
    ) -> MendError? {
        (try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .auto)))?.error
            ?? (try? explainer.explain(.init(body: body, status: status, headers: headers, kind: .http)))?.error
    }
}
