#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
    public import AuthenticationServices
    public import Foundation
    public import MendCore

    /// The device's passkeys through AuthenticationServices (`ASAuthorizationPlatformPublicKeyCredentialProvider`):
    /// iCloud Keychain, or a passkey manager the person chose, with Face ID, Touch ID or the passcode.
    ///
    /// The backend's RP ID must be one of the app's associated domains (`webcredentials:example.com`), and the backend
    /// must serve the app in `/.well-known/apple-app-site-association` (mend-server's `MEND_PASSKEY_APPLE_APP_IDS`).
    /// Errors are the passkey space's codes of `ASAuthorizationError` (``PasskeyPlatformError/code(authorizationErrorCode:)``);
    /// the person cancelling (1001) makes a sign-in a cancelled ``LoginResult``.
    ///
    /// ```swift
    /// let authenticator = PlatformPasskeyAuthenticator { view.window }
    /// let result = try await backend.logIn(withPasskey: authenticator, into: credentials)
    /// ```
    ///
    /// Built only on Apple platforms: Mend's Linux CI does not compile it.
    @available(iOS 16, macOS 13, visionOS 1, *)
    public struct PlatformPasskeyAuthenticator: PasskeyAuthenticator {
        private let anchor: @MainActor @Sendable () -> ASPresentationAnchor?

        /// An authenticator that presents the system's sheet from the window `anchor` returns.
        public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor?) {
            self.anchor = anchor
        }

        /// Makes a passkey with `ASAuthorizationPlatformPublicKeyCredentialProvider`.
        public func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
            try await registerOnMainActor(options)
        }

        /// Signs in with one of the person's passkeys of the RP ID.
        public func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
            try await authenticateOnMainActor(options)
        }

        @MainActor
        private func registerOnMainActor(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(
                relyingPartyIdentifier: options.relyingPartyID)
            let request = provider.createCredentialRegistrationRequest(
                challenge: options.challenge, name: options.userName, userID: options.userID)
            request.userVerificationPreference = .init(rawValue: options.userVerification)
            if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                request.excludedCredentials = options.excludedCredentialIDs.map {
                    ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
                }
            }
            let credential = try await perform(request)
            guard let registration = credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration,
                let attestationObject = registration.rawAttestationObject
            else {
                throw MendError.passkeyPlatform(.Passkey.platformFailed, "The platform gave no passkey registration.")
            }
            return PasskeyRegistration(
                credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
                attestationObject: attestationObject)
        }

        @MainActor
        private func authenticateOnMainActor(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(
                relyingPartyIdentifier: options.relyingPartyID)
            let request = provider.createCredentialAssertionRequest(challenge: options.challenge)
            request.userVerificationPreference = .init(rawValue: options.userVerification)
            request.allowedCredentials = options.allowedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
            let credential = try await perform(request)
            guard let assertion = credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion else {
                throw MendError.passkeyPlatform(.Passkey.platformFailed, "The platform gave no passkey assertion.")
            }
            return PasskeyAssertion(
                credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature,
                userHandle: assertion.userID)
        }

        /// Runs the request in an `ASAuthorizationController`; its error as the passkey space's.
        @MainActor
        private func perform(_ request: ASAuthorizationRequest) async throws -> any ASAuthorizationCredential {
            let delegate = PasskeyControllerDelegate(anchor: anchor())
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = delegate
            controller.presentationContextProvider = delegate
            do {
                return try await withExtendedLifetime((controller, delegate)) {
                    try await withCheckedThrowingContinuation { continuation in
                        delegate.continuation = continuation
                        controller.performRequests()
                    }
                }
            } catch let error as ASAuthorizationError {
                let code = PasskeyPlatformError.code(authorizationErrorCode: error.code.rawValue)
                throw MendError.passkeyPlatform(
                    code ?? .Passkey.platformFailed, "ASAuthorizationError \(error.code.rawValue).")
            }
        }
    }

    /// The controller's delegate: it resumes the ceremony with the credential or the error.
    @MainActor
    private final class PasskeyControllerDelegate: NSObject {
        var continuation: CheckedContinuation<any ASAuthorizationCredential, any Error>?
        let anchor: ASPresentationAnchor?

        init(anchor: ASPresentationAnchor?) { self.anchor = anchor }
    }

    extension PasskeyControllerDelegate: @preconcurrency ASAuthorizationControllerDelegate {
        func authorizationController(
            controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
        ) {
            continuation?.resume(returning: authorization.credential)
            continuation = nil
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            continuation?.resume(throwing: error)
            continuation = nil
        }
    }

    extension PasskeyControllerDelegate: @preconcurrency ASAuthorizationControllerPresentationContextProviding {
        func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
            anchor ?? ASPresentationAnchor()
        }
    }
#endif
