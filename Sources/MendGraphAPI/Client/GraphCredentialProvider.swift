import MendCore
import MendHTTP

/// Connects the Graph client's recovery to MendHTTP's single-flight re-authentication: a token error clears the
/// token, runs the app's recovery attempter once (for any number of concurrent failures), and the pipeline replays
/// each request once with the token the attempter produced.
struct GraphCredentialProvider: CredentialProvider {
    let source: any GraphTokenSource
    let attempter: (any ErrorRecoveryAttempter)?
    let placement: Credential.Placement

    func currentCredential() async throws -> Credential? {
        try await source.currentAccessToken().map { Credential(token: $0, placement: placement) }
    }

    func invalidate(_ credential: Credential, because error: MendError) async {
        await source.invalidate(token: credential.token, because: error)
    }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        guard let attempter else { throw error }
        var offered = error
        offered.recoveryAttempter = attempter
        guard await offered.attemptRecovery(optionIndex: 0), let token = try await source.currentAccessToken(),
            token != rejected.token
        else { throw error }
        return Credential(token: token, placement: placement)
    }

    /// Token errors that recovery handles: 102 and 190 with any subcode, when recoverable (190/492 is not).
    static func isTokenError(_ error: MendError) -> Bool {
        (error.code == .Graph.sessionInvalid || error.code == .Graph.accessTokenInvalid)
            && error.category == .recoverable
    }
}
