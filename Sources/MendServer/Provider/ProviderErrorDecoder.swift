import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendHTTP
import MendLogin

/// How mend-server's provider recording (`MEND_PROVIDER_RECORDING`) classifies a provider's failure: as the client of
/// that API does — an OAuth token endpoint's error (Apple's, Google's, any issuer's `{"error": "invalid_grant"}`)
/// with the OAuth decoder, anything else (the Graph API, Facebook's token endpoint) with the Graph decoder — so that a
/// recorded `_mend` is what `mend explain` says of the same answer.
struct ProviderErrorDecoder: ErrorDecoder {
    func decodeError(response: HTTPResponse, body: Data, context: ErrorDecodingContext) -> MendError? {
        if let oauth = OAuthErrorDecoder().decodeError(response: response, body: body, context: context),
            oauth.domain == .oauth
        {
            return oauth
        }
        return GraphErrorDecoder().decodeError(response: response, body: body, context: context)
    }

    var errorSpaces: [ErrorSpace] { OAuthErrorDecoder().errorSpaces + GraphErrorDecoder().errorSpaces }
}
