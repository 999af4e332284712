import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendJOSE
import MendLogin
import MendTesting
import MendWebAuthn
import SQLKit
import Testing

@testable import MendServer

/// Passkeys through mend-server's routes over loopback, with the software authenticator: add one after a provider
/// login, sign in with it alone, list, rename, remove; each refusal with its code.
@Suite struct PasskeyTests {
    static let origin = "https://login.example.com"

    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.passkeys = PasskeyConfiguration(
            relyingPartyID: "example.com", relyingPartyName: "Example", origins: [origin])
    }

    static func access(_ session: JSONValue) throws -> String { try #require(session["access_token"]?.stringValue) }

    /// `POST /v1/passkeys/registration/options` for the signed-in user of `session`: the options' JSON.
    static func creationOptions(_ stack: TestStack, _ session: JSONValue) async throws -> JSONValue {
        try await stack.client.post(
            "/v1/passkeys/registration/options", json: .object([:]), bearer: try access(session)
        ).json()
    }

    /// Adds a passkey to the signed-in user of `session` with `authenticator`.
    static func addPasskey(
        _ stack: TestStack, _ session: JSONValue, _ authenticator: inout SoftwareAuthenticator, name: String? = nil
    ) async throws -> JSONValue {
        let optionsJSON = try await Self.creationOptions(stack, session)
        let options = try CreationOptions(json: optionsJSON)
        let credential = try authenticator.create(options, origin: origin)
        var body: [String: JSONValue] = ["credential": credential.json]
        if let name { body["name"] = .string(name) }
        return try await stack.client.post(
            "/v1/passkeys/registration", json: .object(body), bearer: try access(session)
        ).json()
    }

    /// Signs in with `authenticator`'s passkey: the session body.
    static func signIn(_ stack: TestStack, _ authenticator: inout SoftwareAuthenticator) async throws -> JSONValue {
        let response = try await assertion(stack, &authenticator)
        return try await stack.client.post("/v1/login/passkey", json: .object(["credential": response.json])).json()
    }

    static func assertion(
        _ stack: TestStack, _ authenticator: inout SoftwareAuthenticator
    ) async throws -> AuthenticationResponse {
        let optionsJSON = try await stack.client.post("/v1/login/passkey/options", json: .object([:])).json()
        return try authenticator.get(try RequestOptions(json: optionsJSON), origin: origin)
    }

    @Test(
        "A user adds a passkey after a provider login and signs in with it alone: the same user, a new session",
        arguments: TestDatabase.available)
    func addAndSignIn(database: TestDatabase) async throws {
        try await TestStack.run(database: database, configure: Self.configure) { stack in
            let first = try await stack.login()
            var authenticator = SoftwareAuthenticator()
            let added = try await Self.addPasskey(stack, first, &authenticator, name: "My phone")
            #expect(added["name"]?.stringValue == "My phone" && added["backed_up"]?.boolValue == false)

            let session = try await Self.signIn(stack, &authenticator)
            #expect(session["user"]?["id"] == first["user"]?["id"])
            #expect(session["session_id"] != first["session_id"])
            let introspected = try await stack.client.get("/v1/session", bearer: try Self.access(session)).json()
            #expect(introspected["valid"]?.boolValue == true)

            let list = try await stack.client.get("/v1/passkeys", bearer: try Self.access(session)).json()
            let passkeys = try #require(list["passkeys"]?.arrayValue)
            #expect(passkeys.count == 1 && passkeys[0]["last_used_at"]?.intValue != nil)

            // The audit log: the passkey added, then a login by passkey.
            let activity = try await stack.client.get("/v1/me/activity", bearer: try Self.access(session)).json()
            let events = activity["events"]?.arrayValue?.compactMap { $0["event"]?.stringValue } ?? []
            #expect(events.contains("passkey_added"))
            #expect(
                activity["events"]?.arrayValue?.contains {
                    $0["event"]?.stringValue == "login" && $0["provider"]?.stringValue == "passkey"
                } == true)
        }
    }

    @Test("A challenge answers once: the same assertion sent again is passkey/1", arguments: TestDatabase.available)
    func challengeUsedOnce(database: TestDatabase) async throws {
        try await TestStack.run(database: database, configure: Self.configure) { stack in
            var authenticator = SoftwareAuthenticator()
            _ = try await Self.addPasskey(stack, try await stack.login(), &authenticator)
            let response = try await Self.assertion(stack, &authenticator)
            _ = try await stack.client.post("/v1/login/passkey", json: .object(["credential": response.json]))
            let replay = await stack.client.failure {
                try await stack.client.post("/v1/login/passkey", json: .object(["credential": response.json]))
            }
            #expect(replay?.code == .Passkey.challengeInvalid && replay?.httpStatus == 400)
        }
    }

    @Test("A challenge past its lifetime is passkey/1")
    func challengeExpires() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            var authenticator = SoftwareAuthenticator()
            _ = try await Self.addPasskey(stack, try await stack.login(), &authenticator)
            let response = try await Self.assertion(stack, &authenticator)
            stack.clock.advance(by: 301)
            let late = await stack.client.failure {
                try await stack.client.post("/v1/login/passkey", json: .object(["credential": response.json]))
            }
            #expect(late?.code == .Passkey.challengeInvalid)
        }
    }

    @Test("A removed passkey is passkey/4 (404) naming the RP ID and the credential, never a cancellation")
    func removedPasskey() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            var authenticator = SoftwareAuthenticator()
            let added = try await Self.addPasskey(stack, session, &authenticator)
            let id = try #require(added["id"]?.stringValue)
            _ = try await stack.client.delete("/v1/passkeys/\(id)", bearer: try Self.access(session))
            let response = try await Self.assertion(stack, &authenticator)
            let refused = await stack.client.failure {
                try await stack.client.post("/v1/login/passkey", json: .object(["credential": response.json]))
            }
            #expect(refused?.code == .Passkey.unknownCredential && refused?.httpStatus == 404)
            #expect(refused?.code != .Passkey.cancelled)
            let body = try #require(refused?.response?.json)
            #expect(body["passkey"]?["rp_id"] == .string("example.com"))
            #expect(body["passkey"]?["credential_id"] == .string(Base64URL.encode(response.credentialID)))
        }
    }

    @Test("Adding a passkey needs a recent sign-in: passkey/8 (403) past the window")
    func recentSignIn() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            stack.clock.advance(by: 301)
            let fresh = try await stack.client.refresh(session["refresh_token"])
            let refused = await stack.client.failure {
                try await stack.client.post(
                    "/v1/passkeys/registration/options", json: .object([:]), bearer: try Self.access(fresh))
            }
            #expect(refused?.code == .Passkey.recentSignInRequired && refused?.httpStatus == 403)
        }
    }

    @Test("User verification is required by default: an authenticator without it is passkey/3")
    func userVerificationRequired() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            var authenticator = SoftwareAuthenticator(behaviour: .init(verifiesUser: false))
            let session = try await stack.login()
            let refused = await stack.client.failure {
                try await Self.addPasskey(stack, session, &authenticator)
            }
            #expect(refused?.code == .Passkey.userVerificationMissing)
        }
    }

    @Test("Another origin is passkey/2; a registration answered by another user's challenge is passkey/1")
    func originAndUser() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            let optionsJSON = try await Self.creationOptions(stack, session)
            var authenticator = SoftwareAuthenticator()
            let phished = try authenticator.create(
                try CreationOptions(json: optionsJSON), origin: "https://login.example.com.evil.test")
            let refused = await stack.client.failure {
                try await stack.client.post(
                    "/v1/passkeys/registration", json: .object(["credential": phished.json]),
                    bearer: try Self.access(session))
            }
            #expect(refused?.code == .Passkey.originNotAllowed)

            // Bob answers Alice's challenge.
            let bob = try await stack.login(userID: "100000000000002")
            let aliceOptions = try await Self.creationOptions(stack, session)
            let stolen = try authenticator.create(try CreationOptions(json: aliceOptions), origin: Self.origin)
            let crossed = await stack.client.failure {
                try await stack.client.post(
                    "/v1/passkeys/registration", json: .object(["credential": stolen.json]),
                    bearer: try Self.access(bob))
            }
            #expect(crossed?.code == .Passkey.challengeInvalid)
        }
    }

    @Test("A synced passkey signs in with counter 0 every time; a device-bound counter going back is audited")
    func counters() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            var synced = SoftwareAuthenticator(behaviour: .init(synced: true))
            let alice = try await stack.login()
            _ = try await Self.addPasskey(stack, alice, &synced)
            for _ in 0..<2 { _ = try await Self.signIn(stack, &synced) }

            var device = SoftwareAuthenticator()
            let bob = try await stack.login(userID: "100000000000002")
            _ = try await Self.addPasskey(stack, bob, &device)
            _ = try await Self.signIn(stack, &device)
            _ = try await Self.signIn(stack, &device)
            device.credentials[0].signCount = 0  // a clone, or a restored device: the next assertion says 1
            let session = try await Self.signIn(stack, &device)
            let list = try await stack.client.get("/v1/passkeys", bearer: try Self.access(session)).json()
            #expect(list["passkeys"]?.arrayValue?.first?["counter_regressed_at"]?.intValue != nil)
            let activity = try await stack.client.get("/v1/me/activity", bearer: try Self.access(session)).json()
            #expect(
                activity["events"]?.arrayValue?.contains { $0["event"]?.stringValue == "passkey_counter_regressed" }
                    == true)
        }
    }

    @Test("The policy refuses a device-bound counter going back: passkey/5")
    func counterPolicy() async throws {
        try await TestStack.run(
            configure: {
                Self.configure(&$0)
                $0.passkeys.counterPolicy = .refuseDeviceBound
            }
        ) { stack in
            var device = SoftwareAuthenticator()
            _ = try await Self.addPasskey(stack, try await stack.login(), &device)
            _ = try await Self.signIn(stack, &device)
            device.credentials[0].signCount = 0
            let refused = await stack.client.failure { try await Self.signIn(stack, &device) }
            #expect(refused?.code == .Passkey.counterRegression)
        }
    }

    @Test("Rename, remove, and the excluded credential; account deletion removes the user's passkeys")
    func manage() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            var authenticator = SoftwareAuthenticator()
            let added = try await Self.addPasskey(stack, session, &authenticator)
            let id = try #require(added["id"]?.stringValue)

            // The same authenticator again: it holds an excluded credential and refuses (InvalidStateError).
            let optionsJSON = try await Self.creationOptions(stack, session)
            #expect(throws: SoftwareAuthenticator.Refusal.invalidState) {
                try authenticator.create(try CreationOptions(json: optionsJSON), origin: Self.origin)
            }

            let rename = { (path: String) in
                APIRequest(
                    method: .patch, url: stack.client.url(path),
                    headers: [.authorization: "Bearer \(try Self.access(session))", .contentType: "application/json"],
                    body: Data(#"{"name":"Laptop"}"#.utf8))
            }
            let renamed = try await stack.client.client.send(try rename("/v1/passkeys/\(id)")).json()
            #expect(renamed["name"]?.stringValue == "Laptop")
            let missing = await stack.client.failure {
                try await stack.client.client.send(try rename("/v1/passkeys/pk_nothing"))
            }
            #expect(missing?.httpStatus == 404)

            _ = try await stack.client.client.send(
                APIRequest(
                    method: .delete, url: stack.client.url("/v1/me"),
                    headers: [.authorization: "Bearer \(try Self.access(session))"]))
            let count = try await stack.server.backend.store.sql.raw("SELECT COUNT(*) AS n FROM mend_passkeys")
                .first()?.decode(column: "n", as: Int.self)
            #expect(count == 0)
        }
    }

    @Test("The admin API lists and removes a user's passkeys; the audit log names the admin token")
    func adminPasskeys() async throws {
        let ops = AdminToken.generate(id: "ops")
        try await TestStack.run(
            configure: {
                Self.configure(&$0)
                $0.admin.tokens = [ops.configuration]
            }
        ) { stack in
            let session = try await stack.login()
            let userID = try #require(session["user"]?["id"]?.stringValue)
            var authenticator = SoftwareAuthenticator()
            let added = try await Self.addPasskey(stack, session, &authenticator)
            let admin = { (method: HTTPRequest.Method, path: String) in
                try await stack.client.client.send(
                    APIRequest(
                        method: method, url: stack.client.url(path), headers: [.authorization: "Bearer \(ops.token)"])
                ).json()
            }
            let list = try await admin(.get, "/v1/admin/users/\(userID)/passkeys")
            #expect(list["passkeys"]?.arrayValue?.first?["id"] == added["id"])
            let missing = await stack.client.failure { try await admin(.get, "/v1/admin/users/nobody/passkeys") }
            #expect(missing?.httpStatus == 404)
            let id = try #require(added["id"]?.stringValue)
            #expect(try await admin(.delete, "/v1/admin/users/\(userID)/passkeys/\(id)")["removed"] == .bool(true))
            let again = await stack.client.failure {
                try await admin(.delete, "/v1/admin/users/\(userID)/passkeys/\(id)")
            }
            #expect(again?.httpStatus == 404)
            let audit = try await admin(.get, "/v1/admin/audit?event=passkey_removed")
            #expect(audit["events"]?.arrayValue?.first?["actor"] == .string("ops"))
        }
    }

    @Test("The association files: related origins, Apple's webcredentials and Android's asset links, as JSON")
    func associationFiles() async throws {
        try await TestStack.run(
            configure: {
                Self.configure(&$0)
                $0.passkeys.relatedOrigins = ["https://example.co.uk"]
                $0.passkeys.appleAppIDs = ["ABCDE12345.com.example.app"]
                $0.passkeys.androidApps = [
                    "com.example.app:" + Array(repeating: "AB", count: 32).joined(separator: ":")
                ]
            }
        ) { stack in
            let related = try await stack.client.get("/.well-known/webauthn").json()
            #expect(related["origins"] == .array([.string("https://example.co.uk")]))
            let apple = try await stack.client.get("/.well-known/apple-app-site-association").json()
            #expect(apple["webcredentials"]?["apps"] == .array([.string("ABCDE12345.com.example.app")]))
            let android = try await stack.client.get("/.well-known/assetlinks.json")
            #expect(android.head.headerFields[.contentType] == "application/json")
            let links = try android.json()
            #expect(links.arrayValue?.first?["target"]?["package_name"] == .string("com.example.app"))
        }
    }

    @Test("Recovery: a user whose passkeys are all lost signs in with the provider, adds a new one and uses it")
    func recovery() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let first = try await stack.login()
            var lost = SoftwareAuthenticator()
            let old = try await Self.addPasskey(stack, first, &lost)
            // The device is lost: its passkey is removed, and the provider login is the way back in.
            let oldID = try #require(old["id"]?.stringValue)
            _ = try await stack.client.delete("/v1/passkeys/\(oldID)", bearer: try Self.access(first))
            let again = try await stack.login()
            #expect(again["user"]?["id"] == first["user"]?["id"])
            var replacement = SoftwareAuthenticator()
            _ = try await Self.addPasskey(stack, again, &replacement)
            let session = try await Self.signIn(stack, &replacement)
            #expect(session["user"]?["id"] == first["user"]?["id"])
            let refused = await stack.client.failure { try await Self.signIn(stack, &lost) }
            #expect(refused?.code == .Passkey.unknownCredential)
        }
    }

    @Test("An unsupported attestation format is passkey/6; an assertion whose signature was changed is passkey/7")
    func attestationAndSignature() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            let optionsJSON = try await Self.creationOptions(stack, session)
            var authenticator = SoftwareAuthenticator()
            var response = try authenticator.create(try CreationOptions(json: optionsJSON), origin: Self.origin)
            // The same object with another format's name: Mend verifies none and packed only.
            let object = try #require(try CBOR.decode(response.attestationObject).mapValue)
            let renamed = try #require(
                CBORMap(object.entries.map { $0.key == .text("fmt") ? ($0.key, .text("tpm")) : $0 }))
            response.attestationObject = CBOR.encode(.map(renamed))
            let unsupported = await stack.client.failure {
                try await stack.client.post(
                    "/v1/passkeys/registration", json: .object(["credential": response.json]),
                    bearer: try Self.access(session))
            }
            #expect(unsupported?.code == .Passkey.unsupportedAttestation && unsupported?.httpStatus == 400)

            _ = try await Self.addPasskey(stack, session, &authenticator)
            var assertion = try await Self.assertion(stack, &authenticator)
            assertion.signature[assertion.signature.count - 1] ^= 1
            let forged = await stack.client.failure {
                try await stack.client.post("/v1/login/passkey", json: .object(["credential": assertion.json]))
            }
            #expect(forged?.code == .Passkey.verificationFailed && forged?.httpStatus == 400)
        }
    }

    @Test("A credential ID registered already (here, by anyone) is passkey/10 (409)")
    func alreadyRegistered() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            var authenticator = SoftwareAuthenticator()
            _ = try await Self.addPasskey(stack, session, &authenticator)
            let credential = try #require(authenticator.credentials.first)
            // Another user's registration naming the same credential ID (an authenticator that reuses IDs, or a
            // replayed one), made by hand for the options' challenge.
            let bob = try await stack.login(userID: "100000000000002")
            let options = try CreationOptions(
                json: try await Self.creationOptions(stack, bob))
            let clientData = Array(
                JSONValue.object([
                    "type": .string("webauthn.create"), "challenge": .string(Base64URL.encode(options.challenge)),
                    "origin": .string(Self.origin),
                ]).jsonText().utf8)
            let data = AuthenticatorData.encode(
                rpIDHash: Array(SHA256.hash(data: Array("example.com".utf8))), flags: [.userPresent, .userVerified],
                signCount: 0,
                credential: (
                    aaguid: Array(repeating: 0, count: 16), id: credential.id,
                    key: credential.key.publicKey
                ))
            let object = CBORMap([
                (.text("fmt"), .text("none")), (.text("attStmt"), .map(CBORMap([])!)),
                (.text("authData"), .bytes(data)),
            ])!
            let response = RegistrationResponse(
                credentialID: credential.id, clientDataJSON: clientData, attestationObject: CBOR.encode(.map(object)))
            let refused = await stack.client.failure {
                try await stack.client.post(
                    "/v1/passkeys/registration", json: .object(["credential": response.json]),
                    bearer: try Self.access(bob))
            }
            #expect(refused?.code == .Passkey.alreadyRegistered && refused?.httpStatus == 409)
        }
    }

    @Test("The last way to sign in is not removed: passkey/9 (409) when no provider is linked")
    func lastSignInMethod() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let session = try await stack.login()
            var authenticator = SoftwareAuthenticator()
            let added = try await Self.addPasskey(stack, session, &authenticator)
            let userID = try #require(session["user"]?["id"]?.stringValue)
            try await stack.server.backend.store.sql.raw("DELETE FROM mend_identities WHERE user_id = \(bind: userID)")
                .run()
            let id = try #require(added["id"]?.stringValue)
            let refused = await stack.client.failure {
                try await stack.client.delete("/v1/passkeys/\(id)", bearer: try Self.access(session))
            }
            #expect(refused?.code == .Passkey.lastSignInMethod && refused?.httpStatus == 409)
        }
    }

    @Test(
        "Adding a passkey without a token is 401 however often it is tried: the token is checked before the rate limit")
    func authenticationBeforeTheRateLimit() async throws {
        try await TestStack.run(
            configure: {
                Self.configure(&$0)
                $0.sessions.rateLimits.loginPerAddress = RateLimitRule(requests: 1, per: .seconds(60))
            }
        ) { stack in
            for path in ["/v1/passkeys/registration/options", "/v1/passkeys/registration"] {
                for _ in 0..<3 {
                    let refused = await stack.client.failure {
                        try await stack.client.post(path, json: .object(["credential": .object([:])]))
                    }
                    // Failed before: 429 from the second request on (schemathesis, ST401).
                    #expect(refused?.httpStatus == 401, "\(path)")
                }
            }
        }
    }

    @Test("A concrete path's 405 lists its own methods, not a templated path's that its segment would fill (OpenAPI)")
    func concretePathsFirst() async throws {
        try await TestStack.run(configure: Self.configure) { stack in
            let refused = await stack.client.failure {
                try await stack.client.client.send(
                    APIRequest(method: .options, url: stack.client.url("/v1/passkeys/registration")))
            }
            #expect(refused?.httpStatus == 405)
            // Failed before: "POST, PATCH, DELETE", the methods of /v1/passkeys/{id} with id = "registration".
            #expect(refused?.developerMessage == "/v1/passkeys/registration answers POST, not OPTIONS.")
            let templated = await stack.client.failure {
                try await stack.client.client.send(
                    APIRequest(method: .post, url: stack.client.url("/v1/passkeys/pk_x")))
            }
            #expect(templated?.developerMessage == "/v1/passkeys/pk_x answers PATCH, DELETE, not POST.")
        }
    }

    @Test("Without an RP ID the passkey routes are 404 and not in the document")
    func offByDefault() async throws {
        try await TestStack.run { stack in
            let missing = await stack.client.failure {
                try await stack.client.post("/v1/login/passkey/options", json: .object([:]))
            }
            #expect(missing?.httpStatus == 404)
            let document = try await stack.client.get("/openapi.json").json()
            #expect(document["paths"]?["/v1/login/passkey"] == nil)
        }
    }
}
