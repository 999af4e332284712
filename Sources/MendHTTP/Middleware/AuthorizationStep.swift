import Foundation
import HTTPTypes
public import Logging
public import MendCore

/// The authorization step: attaches the credential; when the server rejects it, does what the request's
/// ``RequestOptions/credentialRejection`` says — invalidate it, and re-authenticate once (single-flight across
/// concurrent requests) and replay once. A second failure is returned, never looped.
public struct AuthorizationStep: ClientMiddleware {
    let provider: (any CredentialProvider)?
    let coordinator: ReauthenticationCoordinator?
    let isRejection: @Sendable (MendError) -> Bool
    let behaviors: LoggingBehaviors

    /// Creates the step.
    ///
    /// - Parameters:
    ///   - provider: Supplies, invalidates and refreshes the credential; `nil` sends requests without one.
    ///   - isRejection: Which errors mean that the server rejected the credential (default:
    ///     ``isAuthenticationRejection(_:)``; the Graph client also counts its token errors).
    ///   - logging: Logs each re-authentication when it contains ``LoggingBehaviors/reauthentication``.
    public init(
        provider: (any CredentialProvider)?,
        isRejection: @escaping @Sendable (MendError) -> Bool = AuthorizationStep.isAuthenticationRejection,
        logging: LoggingBehaviors = []
    ) {
        self.provider = provider
        self.coordinator = provider.map(ReauthenticationCoordinator.init(provider:))
        self.isRejection = isRejection
        self.behaviors = logging
    }

    /// A recoverable error whose recovery is to re-authenticate (a 401, an expired session).
    public static func isAuthenticationRejection(_ error: MendError) -> Bool {
        error.category == .recoverable && error.recovery.action == .reauthenticate
    }

    /// Attaches the credential and handles its rejection.
    public func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        guard request.options.attachesCredential else { return try await next(request) }
        let credential: Credential?
        if let override = request.options.credentialOverride {
            credential = override
        } else {
            credential = try await currentCredential()
        }
        guard let credential else { return try await next(request) }
        do {
            return try await next(Self.apply(credential, to: request))
        } catch let error as MendError {
            // The one decision for a rejected credential: keep it, invalidate it, or re-authenticate and replay.
            guard request.options.credentialOverride == nil, isRejection(error),
                request.options.credentialRejection != .keep
            else { throw error }
            guard request.options.credentialRejection == .reauthenticate, let coordinator else {
                await provider?.invalidate(credential, because: error)
                throw error
            }
            if behaviors.contains(.reauthentication) {
                context.logger.debug(
                    "Re-authenticating after a rejected credential",
                    metadata: ["error": "\(error.shortDescription)", "credential": "\(credential)"])
            }
            let fresh: Credential
            do {
                fresh = try await coordinator.freshCredential(after: credential, error: error)
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
            return try await next(Self.apply(fresh, to: request))
        }
    }

    private func currentCredential() async throws -> Credential? {
        guard let provider else { return nil }
        return try await provider.currentCredential()
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
        let encodedValue = value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? value
        guard let questionMark = path.firstIndex(of: "?") else { return "\(path)?\(name)=\(encodedValue)" }
        let base = path[..<questionMark]
        let kept = path[path.index(after: questionMark)...].split(separator: "&").filter {
            !$0.hasPrefix("\(name)=") && $0 != Substring(name)
        }
        return base + "?" + (kept.map(String.init) + ["\(name)=\(encodedValue)"]).joined(separator: "&")
    }
}

extension CharacterSet {
    /// Characters that may stand unescaped in a query parameter's value.
    static let urlQueryValueAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return allowed
    }()
}
