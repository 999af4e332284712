import Foundation
import HTTPTypes
public import Logging
public import MendCore

/// The authorization step: attaches the credential; when the server rejects it, does what the request's
/// ``RequestOptions/credentialRejection`` says — invalidate it, or renew it through the ``CredentialProvider`` and
/// replay once. A second failure is returned, never looped.
package struct AuthorizationStep: ClientMiddleware {
    let provider: (any CredentialProvider)?
    let placement: Credential.Placement?
    let isRejection: @Sendable (MendError) -> Bool
    let behaviors: LoggingBehaviors
    /// The `DPoP-Nonce` of each origin and its clock, for a bound credential that brings no book of its own (one an
    /// app made): this client's. A session's credentials bring their session's book (MendLogin), which every client
    /// serving the session shares.
    let nonces = DPoPNonceBook()

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - provider: Supplies, invalidates and renews the credential; `nil` sends requests without one.
    ///   - placement: Where this API takes the token (the Graph API: a header or `access_token`), whatever the
    ///     provider's credential says; `nil` keeps the credential's own placement.
    ///   - isRejection: Which errors mean that the server rejected the credential (default:
    ///     ``isAuthenticationRejection(_:)``; the Graph client counts its token errors).
    ///   - logging: Logs each re-authentication when it contains ``LoggingBehaviors/reauthentication``.
    package init(
        provider: (any CredentialProvider)?, placement: Credential.Placement? = nil,
        isRejection: @escaping @Sendable (MendError) -> Bool = AuthorizationStep.isAuthenticationRejection,
        logging: LoggingBehaviors = []
    ) {
        self.provider = provider
        self.placement = placement
        self.isRejection = isRejection
        self.behaviors = logging
    }

    /// A recoverable error whose recovery is to re-authenticate (a 401, an expired session).
    package static func isAuthenticationRejection(_ error: MendError) -> Bool {
        error.category == .recoverable && error.recovery.action == .reauthenticate
    }

    /// Attaches the credential and handles its rejection.
    package nonisolated(nonsending) func intercept(
        _ request: APIRequest, context: PipelineContext, next: PipelineNext
    ) async throws -> APIResponse {
        // A token endpoint's request brings its own binding (`dpop`): it goes on as it is.
        guard request.options.attachesCredential else { return try await next(request, context: context) }
        if let override = request.options.credentialOverride {
            // A token override is never invalidated or renewed.
            return try await send(override, request, context: context, next)
        }
        guard let provider, let credential = try await provider.currentCredential() else {
            return try await next(request, context: context)
        }
        do {
            return try await send(credential, request, context: context, next)
        } catch let error as MendError {
            // The one decision for a rejected credential: keep it, invalidate it, or renew it and replay.
            let rejection = request.options.credentialRejection
            // A nonce challenge left after the retry step's one resend is the server's, not the credential's: nothing
            // is renewed.
            guard rejection != .keep, isRejection(error), !DPoPResend.isNonceChallenge(error) else { throw error }
            await provider.invalidate(credential, because: error)
            guard rejection == .reauthenticate else { throw error }
            if behaviors.contains(.reauthentication) {
                context.logger.debug(
                    "Re-authenticating after a rejected credential",
                    metadata: ["error": "\(error.shortDescription)", "credential": "\(credential)"])
            }
            let fresh: Credential
            do {
                if let observation = context.observation {
                    fresh = try await observation.renewingCredential(after: error) {
                        try await provider.refreshCredential(rejected: credential, error: error)
                    }
                } else {
                    fresh = try await provider.refreshCredential(rejected: credential, error: error)
                }
            } catch let refreshError as MendError {
                if behaviors.contains(.reauthentication) {
                    context.logger.debug(
                        "Re-authentication failed", metadata: ["error": "\(refreshError.shortDescription)"])
                }
                throw refreshError
            }
            if behaviors.contains(.reauthentication) {
                context.logger.debug("Replaying once with a fresh credential", metadata: ["credential": "\(fresh)"])
            }
            return try await send(fresh, request, context: context, next)
        }
    }

    /// Sends `request` with `credential` (a bound one's proofs are made per attempt by the exchange, and its nonce
    /// challenges and clock refusals answered by the retry step).
    private nonisolated(nonsending) func send(
        _ credential: Credential, _ request: APIRequest, context: PipelineContext, _ next: PipelineNext
    ) async throws -> APIResponse {
        try await next(apply(credential, to: request), context: context)
    }

    /// `request` carrying `credential` where this step's placement (or else the credential's) says.
    func apply(_ credential: Credential, to request: APIRequest) -> APIRequest {
        if let prover = credential.prover {
            // A bound token goes where DPoP says, whatever this API's placement: its proof names it (`ath`).
            var request = Self.apply(credential, to: request)
            request.dpop = DPoPBinding(
                prover: prover, accessToken: credential.token, nonces: credential.nonces ?? nonces)
            return request
        }
        guard let placement, placement != credential.placement else { return Self.apply(credential, to: request) }
        var placed = credential
        placed.placement = placement
        return Self.apply(placed, to: request)
    }

    /// Returns `request` carrying `credential` where its placement says.
    static func apply(_ credential: Credential, to request: APIRequest) -> APIRequest {
        var request = request
        request.appliedCredential = credential
        switch credential.placement {
        case .bearerHeader:
            request.head.headerFields[.authorization] = "Bearer \(credential.token)"
        case .authorizationHeader(let scheme):
            request.head.headerFields[.authorization] = "\(scheme) \(credential.token)"
        case .header(let name):
            if let fieldName = HTTPField.Name(name) { request.head.headerFields[fieldName] = credential.token }
        case .queryParameter(let name):
            request.head.path = Self.replacingQueryParameter(name, with: credential.token, in: request.head.path ?? "/")
        }
        return request
    }

    static func replacingQueryParameter(_ name: String, with value: String, in path: String) -> String {
        let encodedValue = FormEncoding.escape(value)
        guard let questionMark = path.firstIndex(of: "?") else { return "\(path)?\(name)=\(encodedValue)" }
        let base = path[..<questionMark]
        let kept = path[path.index(after: questionMark)...].split(separator: "&").filter {
            !$0.hasPrefix("\(name)=") && $0 != Substring(name)
        }
        return base + "?" + (kept.map(String.init) + ["\(name)=\(encodedValue)"]).joined(separator: "&")
    }
}
