public import Foundation
public import MendCore
package import MendWebAuthn

/// What makes passkeys and signs in with them: the platform's authenticator, behind the app's code.
///
/// ``BackendSessionClient`` runs the ceremonies with the backend (``BackendSessionClient/logIn(withPasskey:)``,
/// ``BackendSessionClient/addPasskey(named:with:using:)``) and hands the authenticator the server's options; the
/// authenticator asks the person and returns the platform's answer in WebAuthn's JSON. On Apple platforms
/// `PlatformPasskeyAuthenticator` does it with AuthenticationServices; an app whose passkeys go through a web view
/// or another SDK implements this protocol over it:
///
/// ```swift
/// struct WebViewAuthenticator: PasskeyAuthenticator {
///     func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
///         // PublicKeyCredential.parseCreationOptionsFromJSON(options.json), create(), toJSON()
///         PasskeyRegistration(json: try await page.createPasskey(options.json))
///     }
///     func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
///         PasskeyAssertion(json: try await page.getPasskey(options.json))
///     }
/// }
/// ```
///
/// **Errors.** Throw the platform's error as a `MendError` of the passkey space (`MendError.passkeyPlatform(_:_:)`
/// with ``PasskeyPlatformError/code(authorizationErrorCode:)`` or ``PasskeyPlatformError/code(domExceptionName:)``).
/// The person cancelling (`MendError.Code.Passkey.cancelled`; an `ASAuthorizationError.canceled` thrown as it is
/// counts too) ends a sign-in with a cancelled ``LoginResult`` — never an error to show.
public protocol PasskeyAuthenticator: Sendable {
    /// Makes a passkey for the options' user (`navigator.credentials.create()`), asking the person.
    ///
    /// - Returns: The new credential, as `RegistrationResponseJSON`.
    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration

    /// Signs in with one of the person's passkeys of the options' RP ID (`navigator.credentials.get()`).
    ///
    /// - Returns: The assertion, as `AuthenticationResponseJSON`.
    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion
}

/// The backend's options to add a passkey: `PublicKeyCredentialCreationOptionsJSON` as the server sent it, and the
/// members a native API asks for, decoded.
public struct PasskeyCreationOptions: Sendable, Hashable {
    /// The options as the server sent them: what `PublicKeyCredential.parseCreationOptionsFromJSON()` reads.
    public let json: JSONValue
    /// The RP ID (the domain the passkey is scoped to).
    public var relyingPartyID: String { options.rpID }
    /// The challenge.
    public var challenge: Data { Data(options.challenge) }
    /// The user handle (opaque bytes, not an e-mail address).
    public var userID: Data { Data(options.userID) }
    /// The account name the platform shows.
    public var userName: String { options.userName }
    /// The name to show for the account.
    public var userDisplayName: String { options.userDisplayName }
    /// The user's passkeys already registered: an authenticator holding one does not make another.
    public var excludedCredentialIDs: [Data] { options.excludeCredentials.map { Data($0.id) } }
    /// The user verification asked for: `required`, `preferred` or `discouraged`.
    public var userVerification: String { options.userVerification.rawValue }

    /// The decoded options.
    package let options: CreationOptions

    /// Reads the server's options; `transport/…` (a malformed answer) when they are not WebAuthn's.
    package init(json: JSONValue) throws {
        do {
            options = try CreationOptions(json: json)
        } catch {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The passkey creation options: \(error).",
                catalog: .login)
        }
        self.json = json
    }
}

/// The backend's options to sign in with a passkey: `PublicKeyCredentialRequestOptionsJSON` as the server sent it,
/// and its members decoded.
public struct PasskeyRequestOptions: Sendable, Hashable {
    /// The options as the server sent them: what `PublicKeyCredential.parseRequestOptionsFromJSON()` reads.
    public let json: JSONValue
    /// The RP ID.
    public var relyingPartyID: String { options.rpID }
    /// The challenge.
    public var challenge: Data { Data(options.challenge) }
    /// The passkeys that may answer; empty for a sign-in with any passkey of the RP ID (usernameless).
    public var allowedCredentialIDs: [Data] { options.allowCredentials.map { Data($0.id) } }
    /// The user verification asked for: `required`, `preferred` or `discouraged`.
    public var userVerification: String { options.userVerification.rawValue }

    /// The decoded options.
    package let options: MendWebAuthn.RequestOptions

    /// Reads the server's options; `transport/…` (a malformed answer) when they are not WebAuthn's.
    package init(json: JSONValue) throws {
        do {
            options = try MendWebAuthn.RequestOptions(json: json)
        } catch {
            throw MendError(
                code: .Transport.malformedResponse, developerMessage: "The passkey request options: \(error).",
                catalog: .login)
        }
        self.json = json
    }
}

/// A new passkey, as the platform made it: `RegistrationResponseJSON` (what `toJSON()` gives), sent to the backend
/// unchanged.
public struct PasskeyRegistration: Sendable, Hashable {
    /// The JSON the backend verifies.
    public let json: JSONValue

    /// A registration a platform gave as JSON (a browser's `credential.toJSON()`).
    public init(json: JSONValue) { self.json = json }

    /// A registration from a native API's bytes (`ASAuthorizationPlatformPublicKeyCredentialRegistration`'s
    /// `credentialID`, `rawClientDataJSON` and `rawAttestationObject`).
    ///
    /// - Parameters:
    ///   - credentialID: The new passkey's credential ID.
    ///   - clientDataJSON: The client data the platform signed over, as it gave it.
    ///   - attestationObject: The attestation object (CBOR), as the platform gave it.
    ///   - transports: How the authenticator is reached (`internal` for the device's own, `hybrid`, `usb`, …).
    ///   - attachment: `platform` or `cross-platform` (a security key), when known.
    public init(
        credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = ["internal"],
        attachment: String? = "platform"
    ) {
        self.init(
            RegistrationResponse(
                credentialID: Array(credentialID), clientDataJSON: Array(clientDataJSON),
                attestationObject: Array(attestationObject), transports: transports,
                authenticatorAttachment: attachment, residentKey: true))
    }

    package init(_ response: RegistrationResponse) { self.init(json: response.json) }
}

/// A passkey's answer to a sign-in: `AuthenticationResponseJSON` (what `toJSON()` gives), sent to the backend
/// unchanged.
public struct PasskeyAssertion: Sendable, Hashable {
    /// The JSON the backend verifies.
    public let json: JSONValue

    /// An assertion a platform gave as JSON (a browser's `credential.toJSON()`).
    public init(json: JSONValue) { self.json = json }

    /// An assertion from a native API's bytes (`ASAuthorizationPlatformPublicKeyCredentialAssertion`'s
    /// `credentialID`, `rawClientDataJSON`, `rawAuthenticatorData`, `signature` and `userID`).
    ///
    /// - Parameters:
    ///   - credentialID: The passkey's credential ID.
    ///   - clientDataJSON: The client data the platform signed over, as it gave it.
    ///   - authenticatorData: The authenticator data, as it gave it.
    ///   - signature: The signature over the authenticator data and the client data's hash.
    ///   - userHandle: The user handle the passkey was made for (a discoverable credential gives it).
    public init(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?
    ) {
        self.init(
            AuthenticationResponse(
                credentialID: Array(credentialID), clientDataJSON: Array(clientDataJSON),
                authenticatorData: Array(authenticatorData), signature: Array(signature),
                userHandle: userHandle.map(Array.init)))
    }

    package init(_ response: AuthenticationResponse) { self.init(json: response.json) }

    /// The ID of the passkey that answered (the JSON's `rawId`, else `id`), when readable.
    public var credentialID: Data? {
        (json["rawId"]?.stringValue ?? json["id"]?.stringValue).flatMap { Base64URL.decode($0) }
    }
}

/// "No such passkey here" (`passkey/4`): the backend has no passkey with the ID the person's authenticator answered
/// with — removed (here, or from another device), or never added. Offer another way to sign in, and tell the
/// platform so that it stops offering the passkey: `ASCredentialUpdater.reportUnknownPublicKeyCredential` on Apple
/// platforms, `PublicKeyCredential.signalUnknownCredential({rpId, credentialId})` on the web.
public struct UnknownPasskeyError: Error, Sendable, CustomStringConvertible {
    /// The RP ID the passkey is scoped to.
    public var relyingPartyID: String
    /// The passkey's credential ID.
    public var credentialID: Data
    /// The server's answer (`passkey/4`), classified: its code, messages and reference ID.
    public var error: MendError

    /// The credential ID base64url-encoded without padding, as `signalUnknownCredential` takes it.
    public var credentialIDBase64URL: String { Base64URL.encode(credentialID) }

    /// Creates the error.
    public init(relyingPartyID: String, credentialID: Data, error: MendError) {
        self.relyingPartyID = relyingPartyID
        self.credentialID = credentialID
        self.error = error
    }

    /// What it is, with the RP ID and the credential ID (neither is a secret).
    public var description: String {
        "No such passkey here (\(error.codePath)): credential \(credentialIDBase64URL) of \(relyingPartyID)."
    }
}

extension MendError {
    /// A platform's passkey error as a `MendError` of the passkey space, for a ``PasskeyAuthenticator`` to throw:
    /// `code` from ``PasskeyPlatformError/code(authorizationErrorCode:)`` or
    /// ``PasskeyPlatformError/code(domExceptionName:)`` (`MendError.Code.Passkey.platformFailed` when they give
    /// none).
    public static func passkeyPlatform(_ code: MendError.Code, _ developerMessage: String) -> MendError {
        MendError(code: code, developerMessage: developerMessage, catalog: .login)
    }

    /// The `ASAuthorizationError` domain (`ASAuthorizationErrorDomain`), known here without AuthenticationServices.
    static let authorizationErrorDomain = "com.apple.AuthenticationServices.AuthorizationError"

    /// What an authenticator threw, as the passkey space reads it: a `MendError` as it is; an `ASAuthorizationError`
    /// by its code; anything else (a `CancellationError` apart, rethrown) as `passkey/27`.
    static func passkeyAuthenticatorError(_ error: any Error) -> any Error {
        if error is MendError || error is CancellationError { return error }
        let nsError = error as NSError
        if nsError.domain == authorizationErrorDomain,
            let code = PasskeyPlatformError.code(authorizationErrorCode: nsError.code)
        {
            return passkeyPlatform(code, "The authenticator: ASAuthorizationError \(nsError.code).")
        }
        return passkeyPlatform(.Passkey.platformFailed, "The authenticator failed: \(type(of: error)).")
    }
}
