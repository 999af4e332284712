import Foundation
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import MendTesting
import MendWebAuthn
import Testing

/// An authenticator that fails each ceremony with `error`, as a platform does when the person cancels.
private struct FailingAuthenticator: PasskeyAuthenticator {
    let error: any Error & Sendable

    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration { throw error }
    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion { throw error }
}

@Suite("Passkeys through BackendSessionClient, against mend-server")
struct PasskeyClientTests {
    /// The emulator's mend-server with passkeys on: RP ID `localhost`, the origin `https://localhost` (the default).
    static func withPasskeyServer(
        _ body: (RunningEmulator, RunningMendServer) async throws -> Void
    ) async throws {
        try await withEmulator { emulator in
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.passkeys = PasskeyConfiguration(relyingPartyID: "localhost")
            try await withMendServer(configuration: configuration) { server in try await body(emulator, server) }
        }
    }

    @Test("A passkey added after a provider login signs in alone: the session lands in the credentials manager")
    func addThenSignIn() async throws {
        try await Self.withPasskeyServer { emulator, server in
            let device = BackendDevicesTests.device(emulator, server: server.baseURL, client: nil)
            _ = try await device.login.logIn(presenter: presenter(.grantAll))
            let user = try #require(try await device.credentials.currentSession()?.user?.id)
            let authenticator = SoftwarePasskeyAuthenticator()
            let credential = try #require(try await device.credentials.currentCredential())
            let added = try #require(
                try await device.backend.addPasskey(named: "Laptop", with: authenticator, using: credential))
            #expect(added.name == "Laptop" && added.lastUsedAt == nil)
            #expect(try authenticator.credentials().map(\.rpID) == ["localhost"])

            // Another device's manager, empty: the passkey signs in alone, and the session is stored there.
            let other = CredentialsManager(store: InMemoryTokenStore(), authority: device.backend)
            var events = await other.events().makeAsyncIterator()
            let result = try await device.backend.logIn(withPasskey: authenticator, into: other)
            let session = try #require(result.session)
            #expect(!result.isCancelled && session.user?.id == user)
            #expect(session.proofKey != nil, "bound to a key (DPoP), as the client's other logins are")
            #expect(try await other.currentSession()?.accessToken.tokenString == session.accessToken.tokenString)
            guard case .signedIn(let announced)? = await events.next() else {
                Issue.record("no signedIn event")
                return
            }
            #expect(announced.accessToken.tokenString == session.accessToken.tokenString)
            // The new session works: it lists the passkey, now used.
            let listed = try await device.backend.passkeys(
                using: try #require(try await other.currentCredential()))
            #expect(listed.map(\.id) == [added.id] && listed[0].lastUsedAt != nil)
        }
    }

    @Test("Passkeys are listed, renamed and removed; a removed passkey's sign-in is UnknownPasskeyError with its ID")
    func listRenameRemove() async throws {
        try await Self.withPasskeyServer { emulator, server in
            let device = BackendDevicesTests.device(emulator, server: server.baseURL, client: nil)
            _ = try await device.login.logIn(presenter: presenter(.grantAll))
            let credential = try #require(try await device.credentials.currentCredential())
            let authenticator = SoftwarePasskeyAuthenticator()
            #expect(try await device.backend.passkeys(using: credential).isEmpty)
            let added = try #require(try await device.backend.addPasskey(with: authenticator, using: credential))
            #expect(added.name == "Passkey")
            let renamed = try await device.backend.renamePasskey(id: added.id, to: "Phone", using: credential)
            #expect(renamed.id == added.id && renamed.name == "Phone")
            #expect(try await device.backend.passkeys(using: credential).map(\.name) == ["Phone"])

            // The same authenticator again: it holds one of the user's passkeys (InvalidStateError), passkey/22.
            let excluded = try await #require(throws: MendError.self) {
                try await device.backend.addPasskey(with: authenticator, using: credential)
            }
            #expect(excluded.code == .Passkey.excludedCredential)

            try await device.backend.removePasskey(id: added.id, using: credential)
            #expect(try await device.backend.passkeys(using: credential).isEmpty)
            let again = try await #require(throws: MendError.self) {
                try await device.backend.removePasskey(id: added.id, using: credential)
            }
            #expect(again.code == .REST.notFound)

            let other = CredentialsManager(store: InMemoryTokenStore(), authority: device.backend)
            let unknown = try await #require(throws: UnknownPasskeyError.self) {
                try await device.backend.logIn(withPasskey: authenticator, into: other)
            }
            #expect(unknown.error.code == .Passkey.unknownCredential)
            #expect(unknown.relyingPartyID == "localhost")
            let held = try #require(try authenticator.credentials().first)
            #expect(unknown.credentialID == Data(held.id))
            #expect(unknown.credentialIDBase64URL == Base64URL.encode(held.id))
            #expect(try await other.currentSession() == nil)
        }
    }

    @Test(
        "The person cancelling is a cancelled result, never an error; other platform errors are the passkey space's",
        arguments: [
            MendError.passkeyPlatform(.Passkey.cancelled, "cancelled") as any Error & Sendable,
            NSError(domain: "com.apple.AuthenticationServices.AuthorizationError", code: 1001),
        ])
    func cancellation(error: any Error & Sendable) async throws {
        try await Self.withPasskeyServer { emulator, server in
            let device = BackendDevicesTests.device(emulator, server: server.baseURL, client: nil)
            let result = try await device.backend.logIn(
                withPasskey: FailingAuthenticator(error: error), into: device.credentials)
            #expect(result.isCancelled && result.cancellation == .userCancelled && result.session == nil)
            #expect(try await device.credentials.currentSession() == nil)

            _ = try await device.login.logIn(presenter: presenter(.grantAll))
            let credential = try #require(try await device.credentials.currentCredential())
            let added = try await device.backend.addPasskey(
                with: FailingAuthenticator(error: error), using: credential)
            #expect(added == nil)
            #expect(try await device.backend.passkeys(using: credential).isEmpty)
        }
    }

    @Test(
        "An authenticator without a passkey of the RP ID is NotAllowedError (passkey/21), and an ASAuthorizationError keeps its code"
    )
    func platformErrors() async throws {
        try await Self.withPasskeyServer { emulator, server in
            let device = BackendDevicesTests.device(emulator, server: server.baseURL, client: nil)
            let none = try await #require(throws: MendError.self) {
                try await device.backend.logIn(withPasskey: SoftwarePasskeyAuthenticator(), into: device.credentials)
            }
            #expect(none.code == .Passkey.notAllowed)
            let notInteractive = try await #require(throws: MendError.self) {
                try await device.backend.logIn(
                    withPasskey: FailingAuthenticator(
                        error: NSError(domain: "com.apple.AuthenticationServices.AuthorizationError", code: 1005)),
                    into: device.credentials)
            }
            #expect(notInteractive.code == .Passkey.notInteractive)
        }
    }
}
