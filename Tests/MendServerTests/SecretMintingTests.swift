import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendLogin
import MendTesting
import Testing

@testable import MendRecording
@testable import MendServer

/// Every kind of secret Mend mints, relays or holds, made by the code that really makes it, is known to the one secret
/// vocabulary — so that a new token format cannot ship unknown: Redactor and the recorder both redact it.
@Suite struct SecretMintingTests {
    /// Whether both policies remove `secret` from `text` (a shape anywhere) and from a JSON answer (a name).
    static func expectRedacted(_ secret: String, in answer: JSONValue? = nil, shaped: Bool, _ kind: String) {
        #expect(secret.utf8.count >= 6, "\(kind) is too short to test")
        if shaped {
            #expect(SecretVocabulary.hasShape(secret), "\(kind) has no shape the vocabulary knows")
            let text = "seen in a log line: \(secret) (end)"
            #expect(!Redactor.standard.redact(text: text).contains(secret), "Redactor kept \(kind)")
            let recorder = ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable())
            #expect(!recorder.redact(text: text).contains(secret), "the recorder kept \(kind)")
        }
        if let answer {
            #expect(!Redactor.standard.redact(json: answer).jsonText().contains(secret), "Redactor kept \(kind)")
            let recorder = ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable())
            #expect(!recorder.redact(json: answer).jsonText().contains(secret), "the recorder kept \(kind)")
            let text = answer.jsonText()
            #expect(!Redactor.standard.redact(text: text).contains(secret), "Redactor kept \(kind) in text")
            #expect(
                !ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable()).redact(text: text)
                    .contains(secret), "the recorder kept \(kind) in text")
        }
    }

    @Test("mend-server's session tokens, admin tokens and signing keys, and the provider's tokens it relays")
    func serverMints() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let access = try #require(session["access_token"]?.stringValue)
            let refresh = try #require(session["refresh_token"]?.stringValue)
            Self.expectRedacted(access, in: session, shaped: true, "mend-server's access token")
            Self.expectRedacted(refresh, in: session, shaped: true, "mend-server's refresh token")
            let refreshed = try await stack.client.refresh(session["refresh_token"])
            let next = try #require(refreshed["refresh_token"]?.stringValue)
            Self.expectRedacted(next, in: refreshed, shaped: true, "a rotated refresh token")

            // The provider's own tokens: a user token (EAA…), an app token (id|secret).
            let providerToken = try await stack.emulator.token()
            Self.expectRedacted(
                providerToken, in: .object(["access_token": .string(providerToken)]), shaped: true,
                "the provider's user token")
            let app = stack.emulator.emulator.configuration.defaultApp
            Self.expectRedacted(
                app.clientToken, in: .object(["access_token": .string("\(app.id)|\(app.clientToken)")]),
                shaped: false, "an app's client token")
            Self.expectRedacted("\(app.id)|\(app.secret)", shaped: true, "an app token")
            Self.expectRedacted(
                app.secret, in: .object(["client_secret": .string(app.secret)]), shaped: false,
                "the app secret")

            // An authorization code and a PKCE verifier, as mend-server receives them.
            let body = try await stack.emulator.loginCodeBody()
            for name in ["code", "code_verifier"] {
                let value = try #require(body[name]?.stringValue)
                Self.expectRedacted(value, in: body, shaped: false, "a login's \(name)")
            }
        }
        let admin = AdminToken.generate(id: "ops")
        Self.expectRedacted(admin.token, shaped: true, "an admin token")
        for algorithm in SigningKeyConfiguration.Algorithm.allCases {
            let key = SigningKeyConfiguration.generate(keyID: "k1", algorithm: algorithm)
            Self.expectRedacted(key.privateKey.value, shaped: false, "a signing key's private key")
            let setting = "MEND_SIGNING_KEYS=\(key.environmentValue)"
            #expect(!Redactor.standard.redact(text: setting).contains(key.privateKey.value), "\(algorithm)")
            #expect(SecretVocabulary.hasShape(key.environmentValue), "\(algorithm)")
        }
        let encryption = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
        #expect(!Redactor.standard.redact(text: "MEND_TOKEN_ENCRYPTION_KEY=\(encryption)").contains(encryption))
        let database = "postgres://mend:Zq8vR2mN4pW7sT0y@127.0.0.1:5432/mend"
        #expect(!Redactor.standard.redact(text: "cannot reach \(database)").contains("Zq8vR2mN4pW7sT0y"))
    }

    @Test("Apple's client secret and .p8 key, an issuer's id_token, a login's state and nonce")
    func loginMints() async throws {
        let key = P256.Signing.PrivateKey()
        let credentials = AppleClientCredentials(
            teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: Secret(key.pemRepresentation),
            issuer: "https://appleid.apple.com")
        let clientSecret = try credentials.clientSecret(
            clientID: "com.example.app", audience: "https://appleid.apple.com", now: Date())
        Self.expectRedacted(
            clientSecret, in: .object(["client_secret": .string(clientSecret)]), shaped: true,
            "Apple's client secret")
        Self.expectRedacted(key.pemRepresentation, shaped: true, "Apple's .p8 key")

        try await withEmulator { emulator in
            let app = emulator.emulator.configuration.defaultApp
            let idToken = try await emulator.emulator.limitedLoginToken(
                appID: app.id, userID: nil, nonce: "n0nce-Zq8vR2mN4pW7sT0yU6aE5cD",
                baseURL: emulator.baseURL.absoluteString)
            Self.expectRedacted(idToken, in: .object(["id_token": .string(idToken)]), shaped: true, "an id_token")

            // Device login: the device code and the user code, in the provider's real answer.
            let version = emulator.emulator.configuration.graphVersion
            let form = "access_token=\(app.id)%7C\(app.clientToken)&scope=public_profile"
            let response = await emulator.emulator.handle(
                EmulatorRequest(
                    method: .post, target: "/\(version)/device/login",
                    headers: [.contentType: "application/x-www-form-urlencoded"], body: Data(form.utf8)))
            let answer = try JSONValue.parse(response.body).get()
            let deviceCode = try #require(answer["code"]?.stringValue)
            let userCode = try #require(answer["user_code"]?.stringValue)
            Self.expectRedacted(deviceCode, in: answer, shaped: false, "a device code")
            Self.expectRedacted(userCode, in: answer, shaped: false, "a user code")
        }

        // state, nonce and the verifier a client makes for each login, in the authorization URL it opens.
        let pkce = PKCE()
        let state = PKCE().verifier, nonce = PKCE().verifier
        let url =
            "https://www.facebook.com/v25.0/dialog/oauth?client_id=1&state=\(state)&nonce=\(nonce)"
            + "&code_challenge=\(pkce.challenge)"
        for secret in [state, nonce] {
            #expect(!Redactor.standard.redact(text: url).contains(secret))
            #expect(
                !ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable()).redact(url: url)!.contains(secret)
            )
        }
        // PKCE's challenge is public: it stays.
        #expect(Redactor.standard.redact(text: url).contains(pkce.challenge))
    }
}
