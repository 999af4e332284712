import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// `POST /v1/login/id_token` against the emulator's Apple-like and Google-like issuers and its Limited Login tokens:
/// sign-in, the refusals, one user per `(provider, subject)`, and linking.
@Suite("Native id_token sign-in", .serialized)
struct IDTokenLoginTests {
    /// What a native SDK hands the app, and the raw nonce the app made for that sign-in (a new one each time, as an
    /// app does: two sign-ins within a second then differ).
    struct Issued {
        var token: String
        var nonce: String
        /// The authorization code of the same sign-in: Apple's, or Google's `serverAuthCode`.
        var code: String? = nil
    }

    static func freshNonce() -> String { "nonce-" + UUID().uuidString }

    /// The emulator's Google web client: the server client whose `serverAuthCode` the server exchanges.
    static let googleServerClient = "mend-web.apps.googleusercontent.com"

    static func hash(_ nonce: String) -> String {
        SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// What a native SDK hands the app: an id_token from the emulated issuer `kind` for `clientID`, with the nonce as
    /// that provider carries it (Apple: the SHA-256 of the raw nonce; Google: as is), and Google's `serverAuthCode`
    /// for `serverClientID` when one is given.
    static func nativeToken(
        _ stack: TestStack, _ kind: String, clientID: String? = nil, userID: String? = nil,
        serverClientID: String? = nil
    )
        async throws -> Issued
    {
        let nonce = freshNonce()
        var body: [String: JSONValue] = ["nonce": .string(kind == "apple" ? hash(nonce) : nonce)]
        if let clientID { body["clientID"] = .string(clientID) }
        if let serverClientID { body["serverClientID"] = .string(serverClientID) }
        if let userID { body["userID"] = .string(userID) }
        let answer = await stack.emulator.emulator.handle(
            EmulatorRequest(
                method: .post, target: "/_emulator/issuers/\(kind)/native", headers: [.contentType: "application/json"],
                body: Data(JSONValue.object(body).jsonText().utf8), baseURL: stack.emulator.baseURL.absoluteString))
        let token = try #require(answer.json?["id_token"]?.stringValue, "\(answer.json?.jsonText() ?? "no body")")
        return Issued(token: token, nonce: nonce, code: answer.json?["authorization_code"]?.stringValue)
    }

    /// The `sub` claim of a JWT (read, not verified).
    static func subject(of token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text),
            let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return payload["sub"] as? String
    }

    static func limitedLoginToken(_ stack: TestStack, userID: String? = nil) async throws -> Issued {
        let nonce = freshNonce()
        let token = try await stack.emulator.emulator.limitedLoginToken(
            appID: nil, userID: userID, nonce: hash(nonce), baseURL: stack.emulator.baseURL.absoluteString)
        return Issued(token: token, nonce: nonce)
    }

    static func signIn(
        _ stack: TestStack, provider: String, _ issued: Issued, nonce: String? = nil, bearer: String? = nil,
        code: String? = nil
    ) async throws -> JSONValue {
        var body: [String: JSONValue] = [
            "provider": .string(provider), "id_token": .string(issued.token), "nonce": .string(nonce ?? issued.nonce),
        ]
        if let code { body["authorization_code"] = .string(code) }
        return try await stack.client.post("/v1/login/id_token", json: .object(body), bearer: bearer).json()
    }

    @Test("An Apple sign-in's authorization code is exchanged with the team-key client secret and must be its own")
    func appleCode() async throws {
        try await TestStack.run { stack in
            let alice = try await Self.nativeToken(stack, "apple")
            let bob = try await Self.nativeToken(stack, "apple", userID: "100000000000002")
            // Bob's code with Alice's token: refused, and nothing is kept.
            let mixed = await stack.client.failure {
                try await Self.signIn(stack, provider: "apple", alice, code: bob.code)
            }
            #expect(mixed?.response?.status == 400)
            #expect(mixed?.developerMessage.contains("another sign-in") == true)
            // The refused sign-in made no user and no identity (the code is exchanged before either is written).
            let aliceSubject = try #require(Self.subject(of: alice.token))
            #expect(
                try await stack.server.backend.store.identities.identity(provider: "apple", subject: aliceSubject)
                    == nil)
            // A code Apple does not know: its refusal, as a failed sign-in.
            let unknown = await stack.client.failure {
                try await Self.signIn(
                    stack, provider: "apple", try await Self.nativeToken(stack, "apple"), code: "c0.0.nope")
            }
            #expect(unknown?.response?.status == 400, "\(unknown?.developerMessage ?? "")")
            // Google's serverAuthCode: one Google does not know, and another sign-in's, are refused the same way.
            let google = await stack.client.failure {
                try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"), code: "x")
            }
            #expect(google?.response?.status == 400)
            let bobsGoogle = try await Self.nativeToken(
                stack, "google", userID: "100000000000002", serverClientID: Self.googleServerClient)
            let alicesGoogle = try await Self.nativeToken(stack, "google")
            let mixedGoogle = await stack.client.failure {
                try await Self.signIn(stack, provider: "google", alicesGoogle, code: bobsGoogle.code)
            }
            #expect(mixedGoogle?.response?.status == 400)
            #expect(mixedGoogle?.developerMessage.contains("another sign-in") == true)
            // The sign-in's own code: kept, sealed, on the identity. (Bob's first code was spent by the mixed-up
            // attempt: the exchange is what showed it to be another sign-in's.)
            let fresh = try await Self.nativeToken(stack, "apple", userID: "100000000000002")
            let session = try await Self.signIn(stack, provider: "apple", fresh, code: fresh.code)
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let identity = try #require(
                try await stack.server.backend.store.identities.identities(userID: userID).first)
            #expect(identity.providerClientID == "com.example.mend")
            #expect(identity.providerToken?.isEmpty == false)
        }
    }

    @Test(
        "Apple, Google and Limited Login id_tokens open sessions; one user per provider and subject",
        arguments: TestDatabase.available)
    func signIn(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            for provider in ["apple", "google"] {
                let first = try await Self.signIn(
                    stack, provider: provider, try await Self.nativeToken(stack, provider))
                let userID = try #require(first["user"]?["id"]?.stringValue)
                #expect(first["user"]?["provider_user_id"] == .null, "\(provider): no Facebook id")
                #expect(first["user"]?["email"]?.stringValue?.contains("@") == true)
                let access = try #require(first["access_token"]?.stringValue)
                let me = try await stack.client.get("/v1/me", bearer: access).json()
                #expect(me["id"]?.stringValue == userID)
                let refreshed = try await stack.client.refresh(first["refresh_token"])
                #expect(refreshed["user"]?["id"]?.stringValue == userID)
                // A second sign-in of the same person is the same user.
                let second = try await Self.signIn(
                    stack, provider: provider, try await Self.nativeToken(stack, provider))
                #expect(second["user"]?["id"]?.stringValue == userID)
                #expect(second["session_id"] != first["session_id"])
            }
            // Limited Login's subject is the Facebook user id: the same user as a code login.
            let coded = try await stack.login()
            let limited = try await Self.signIn(
                stack, provider: "facebook", try await Self.limitedLoginToken(stack))
            #expect(limited["user"]?["id"] == coded["user"]?["id"])
            #expect(limited["user"]?["provider_user_id"] == coded["user"]?["provider_user_id"])
            // A Limited Login of someone who never logged in with a code gets the Facebook id too.
            let other = try await Self.signIn(
                stack, provider: "facebook", try await Self.limitedLoginToken(stack, userID: "100000000000002"))
            #expect(other["user"]?["provider_user_id"]?.stringValue == "100000000000002")
            #expect(other["user"]?["id"] != coded["user"]?["id"])
        }
    }

    @Test("Tampered, replayed, expired and misdirected id_tokens are refused with login/309")
    func refusals() async throws {
        try await TestStack.run { stack in
            let apple = try await Self.nativeToken(stack, "apple")
            // Signature: the subject changed in the payload.
            var parts = apple.token.split(separator: ".").map(String.init)
            let payload = try #require(Base64URL.decode(parts[1]))
            let claims = String(decoding: payload, as: UTF8.self)
            let forged = claims.replacingOccurrences(of: #""sub":""#, with: #""sub":"x"#)
            #expect(forged != claims)
            parts[1] = Base64URL.encode(Data(forged.utf8))
            var forgedToken = apple
            forgedToken.token = parts.joined(separator: ".")
            for (provider, issued, nonce, what) in [
                ("apple", forgedToken, apple.nonce, "a forged payload"),
                ("apple", apple, Self.freshNonce(), "another nonce"),
                ("apple", apple, Self.hash(apple.nonce), "the hash sent as the raw nonce"),
                ("google", apple, apple.nonce, "Apple's token as Google's (iss)"),
            ] {
                let error = await stack.client.failure {
                    try await Self.signIn(stack, provider: provider, issued, nonce: nonce)
                }
                #expect(error?.code == .Login.invalidIDToken, "\(what): \(error?.developerMessage ?? "")")
                #expect(error?.response?.status == 401, "\(what)")
            }
            // The real token still works once, and never twice.
            _ = try await Self.signIn(stack, provider: "apple", apple)
            let replay = await stack.client.failure { try await Self.signIn(stack, provider: "apple", apple) }
            #expect(replay?.code == .Login.invalidIDToken)
            #expect(replay?.developerMessage.contains("has been used") == true)
            // Expired: the server's clock two hours on.
            let google = try await Self.nativeToken(stack, "google")
            stack.clock.advance(by: 7200)
            let expired = await stack.client.failure { try await Self.signIn(stack, provider: "google", google) }
            #expect(expired?.code == .Login.invalidIDToken)
            // A provider the server does not accept tokens from.
            let unknown = await stack.client.failure { try await Self.signIn(stack, provider: "example", google) }
            // The document lists the configured providers, and nothing else is schema-valid.
            let document = try await stack.client.get("/openapi.json").json()
            let provider = document["components"]?["schemas"]?["IDTokenLoginRequest"]?["properties"]?["provider"]
            #expect(provider?["enum"] == .array([.string("apple"), .string("google"), .string("facebook")]))
            #expect(unknown?.response?.status == 400)
        }
    }

    @Test("A server without a Facebook app signs in with Google and refuses what only Facebook does")
    func withoutFacebook() async throws {
        try await TestStack.run(configure: { $0.providers.facebook = nil }) { stack in
            let session = try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"))
            let access = try #require(session["access_token"]?.stringValue)
            let me = try await stack.client.get("/v1/me", bearer: access).json()
            #expect(me["id"]?.stringValue == session["user"]?["id"]?.stringValue)
            // The access token names the issuer as its audience: there is no app id to name.
            let claims = try #require(access.split(separator: ".").dropFirst().first)
            let payload = try #require(Base64URL.decode(claims))
            #expect(try JSONValue.parse(payload).get()["aud"]?.stringValue == "mend-server")
            // A code login names Facebook by default: not configured, so 400 before any provider call.
            let body = try await stack.emulator.loginCodeBody(
                scopes: ["public_profile"], grant: nil, redirectURI: "https://app.example/callback", userID: nil)
            let code = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(code?.response?.status == 400)
            let token = await stack.client.failure {
                try await stack.client.post(
                    "/v1/login/provider-token", json: .object(["provider_token": .string("EAAtoken")]))
            }
            #expect(token?.response?.status == 400)
            let callback = await stack.client.failure {
                try await stack.client.postForm(
                    "/v1/provider/deauthorize",
                    form: CallbackTests.form(CallbackTests.signedRequest(issuedAt: stack.clock.now)))
            }
            #expect(callback?.response?.status == 404)
            let deleted = try await stack.client.delete("/v1/me", bearer: access).json()
            #expect(deleted["deleted"] == .bool(true))
        }
    }

    @Test("An audience the server does not list is refused")
    func audience() async throws {
        try await TestStack.run(configure: { configuration in
            configuration.providers.idTokenIssuers = configuration.providers.idTokenIssuers.map { issuer in
                var issuer = issuer
                if issuer.name == "google" { issuer.clientIDs = ["another-app.apps.googleusercontent.com"] }
                return issuer
            }
        }) { stack in
            let token = try await Self.nativeToken(stack, "google")
            let error = await stack.client.failure { try await Self.signIn(stack, provider: "google", token) }
            #expect(error?.code == .Login.invalidIDToken)
            #expect(error?.developerMessage.contains("another app") == true, "\(error?.developerMessage ?? "")")
        }
    }

    @Test(
        "Linking takes a signed-in session and a fresh id_token; an identity another user has is refused",
        arguments: TestDatabase.available)
    func linking(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let facebook = try await stack.login()
            let userID = try #require(facebook["user"]?["id"]?.stringValue)
            let access = try #require(facebook["access_token"]?.stringValue)
            let linked = try await Self.signIn(
                stack, provider: "apple", try await Self.nativeToken(stack, "apple"), bearer: access)
            #expect(linked["user"]?["id"]?.stringValue == userID)
            // Signing in with Apple alone now reaches the same user.
            let apple = try await Self.signIn(
                stack, provider: "apple", try await Self.nativeToken(stack, "apple"))
            #expect(apple["user"]?["id"]?.stringValue == userID)
            let identities = try await stack.server.backend.store.identities.identities(userID: userID).map(\.provider)
            #expect(identities == ["apple", "facebook"])
            // Another person's Google account, signed in on its own first, cannot be linked to this user.
            let google = try await Self.signIn(
                stack, provider: "google", try await Self.nativeToken(stack, "google", userID: "100000000000002")
            )
            #expect(google["user"]?["id"]?.stringValue != userID)
            let conflict = await stack.client.failure {
                try await Self.signIn(
                    stack, provider: "google",
                    try await Self.nativeToken(stack, "google", userID: "100000000000002"), bearer: access)
            }
            #expect(conflict?.response?.status == 409)
            #expect(conflict?.code == .REST.updateConflict)
            // A linking request with an ended session links nothing.
            _ = try await stack.client.post(
                "/v1/session/logout", json: .object([:]), bearer: access, expectsJSON: false)
            let ended = await stack.client.failure {
                try await Self.signIn(
                    stack, provider: "google", try await Self.nativeToken(stack, "google"), bearer: access)
            }
            #expect(ended?.response?.status == 401)
            #expect(try await stack.server.backend.store.identities.identities(userID: userID).count == 2)
        }
    }

    @Test(
        "A rotated issuer key: the server's cached key set is fetched again for the new kid, once the interval allows")
    func keyRotation() async throws {
        try await TestStack.run { stack in
            _ = try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"))
            let rotated = await stack.emulator.emulator.handle(
                EmulatorRequest(
                    method: .post, target: "/_emulator/issuers/google/rotate-keys",
                    baseURL: stack.emulator.baseURL.absoluteString))
            #expect(rotated.status == .ok)
            // Signed with the new key: within a minute of the last fetch the unknown kid is not fetched again.
            let early = await stack.client.failure {
                try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"))
            }
            #expect(early?.code == .Login.invalidIDToken, "\(early?.developerMessage ?? "")")
            stack.clock.advance(by: 61)
            let session = try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"))
            #expect(session["access_token"]?.stringValue != nil)
        }
    }

    @Test("Any OpenID Connect issuer is one IDTokenIssuer value: its own name, nonce rule and clients")
    func genericIssuer() async throws {
        try await TestStack.run(configure: { configuration in
            let google = configuration.providers.idTokenIssuers.first { $0.name == "google" }!
            // The Google-like issuer under another name, as an app would add any provider in Swift.
            configuration.providers.idTokenIssuers.append(
                IDTokenIssuer(
                    name: "example", issuer: google.issuer, clientIDs: ["mend-ios.apps.googleusercontent.com"],
                    jwksURI: google.jwksURI, nonceHashing: .plain))
        }) { stack in
            let issued = try await Self.nativeToken(stack, "google")
            let session = try await Self.signIn(stack, provider: "example", issued)
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let identities = try await stack.server.backend.store.identities.identities(userID: userID)
            #expect(identities.map(\.provider) == ["example"])
            // Its identity is its own: the same Google account under "google" is another user.
            let google = try await Self.signIn(stack, provider: "google", try await Self.nativeToken(stack, "google"))
            #expect(google["user"]?["id"]?.stringValue != userID)
        }
    }

    @Test("A kept code whose answer has no id_token cannot be shown to be this sign-in's: refused, nothing written")
    func keptCodeWithoutIDToken() async throws {
        try await TestStack.run(configure: { configuration in
            configuration.providers.idTokenIssuers = configuration.providers.idTokenIssuers.map { issuer in
                var issuer = issuer
                if issuer.name == "google" { issuer.tokenKeeper = KeeperWithoutIDToken() }
                return issuer
            }
        }) { stack in
            let issued = try await Self.nativeToken(stack, "google")
            let refused = await stack.client.failure {
                try await Self.signIn(stack, provider: "google", issued, code: "any-code")
            }
            #expect(refused?.response?.status == 400, "\(refused?.developerMessage ?? "accepted")")
            let subject = try #require(Self.subject(of: issued.token))
            #expect(
                try await stack.server.backend.store.identities.identity(provider: "google", subject: subject) == nil)
        }
    }
}

/// A keeper whose provider answers a code with a token but no id_token.
struct KeeperWithoutIDToken: ProviderTokenKeeper {
    func exchange(
        code: String, audience: [String], transport: any HTTPTransport, now: Date
    ) async throws
        -> KeptProviderToken?
    { KeptProviderToken(clientID: "some-client", token: "some-token") }

    func revoke(_ token: KeptProviderToken, transport: any HTTPTransport, now: Date) async throws {}
}
