import AsyncHTTPClient
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendRecording
import MendTesting
import Testing

/// A PKCE login with discovery and an RS256 id_token, recorded against the emulator and replayed with none: the
/// replayed client makes a fresh state, nonce, verifier and loopback port; the replay answers with its own state in
/// the redirect and an id_token signed again with a fixture key (whose JWKS it serves) carrying its own nonce.
@Suite struct LoginReplayTests {
    /// Walks the login dialog through `transport`, as a browser would (the emulator consents at once), then
    /// delivers the redirect to the app's loopback receiver (the app itself: never recorded).
    static func browse(_ url: URL, through transport: any HTTPTransport) async throws {
        let (response, body) = try await transport.send(
            HTTPRequest(method: .get, url: url), body: nil, timeout: .seconds(10))
        let text: String
        if case .complete(let data) = try await body.collect(upTo: 1 << 20) {
            text = String(decoding: data.prefix(300), as: UTF8.self)
        } else {
            text = ""
        }
        let location = try #require(
            response.headerFields[.location], "the dialog did not redirect: \(response.status.code) \(text)")
        _ = try await AsyncHTTPClientTransport().send(
            HTTPRequest(method: .get, url: try #require(URL(string: location))), body: nil, timeout: .seconds(10))
    }

    static func login(transport: any HTTPTransport, discovery: URL, appID: String) async throws -> Session {
        let provider = try await LoginProvider.discover(issuer: discovery, clientID: appID, transport: transport)
        let validator = IDTokenValidator(
            issuer: try #require(provider.issuer), clientID: appID, jwksURI: try #require(provider.jwksURI),
            transport: transport)
        let login = LoginManager(
            provider: provider,
            credentials: CredentialsManager(
                store: InMemoryTokenStore(),
                authority: provider.dialect.sessionAuthority(
                    for: provider, transport: transport, idTokenValidator: validator)),
            defaultScopes: ["openid", "public_profile"])
        let presenter = LoopbackBrowserPresenter(
            opener: .custom { url in try await browse(url, through: transport) }, timeout: .seconds(60))
        return try #require(try await login.logIn(presenter: presenter).session)
    }

    @Test("A recorded PKCE login replays with no emulator: a fresh state, nonce and verifier; the id_token validates")
    func loginReplays() async throws {
        let file = temporaryDirectory().appendingPathComponent("login.har")
        var configuration = EmulatorConfiguration(issuer: EmulatorConfiguration.baseURLIssuer)
        configuration.autoConsent = .grantAll
        let (recorded, discovery, appID) = try await withEmulator(configuration: configuration) { emulator in
            let appID = emulator.emulator.configuration.defaultApp.id
            let discovery = emulator.url("/.well-known/openid-configuration")
            // A client that leaves redirects to its caller, as Mend's pipeline expects (the dialog's 302 is an answer).
            let client = HTTPClient(
                eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = client.shutdown() }
            let recorder = try RecordingTransport(
                wrapping: AsyncHTTPClientTransport(client: client), file: file, mode: .all)
            return (try await Self.login(transport: recorder, discovery: discovery, appID: appID), discovery, appID)
        }
        #expect(recorded.idToken != nil && recorded.user?.id == "100000000000001")

        let replayed = try await Self.login(
            transport: try ReplayTransport(recording: file), discovery: discovery, appID: appID)
        #expect(replayed.user?.id == recorded.user?.id)
        // Validated: MendLogin keeps an id_token only after its signature, issuer, audience, expiry and nonce passed.
        let idToken = try #require(replayed.idToken)
        #expect(idToken != recorded.idToken)
        #expect(replayed.accessToken.tokenString.hasPrefix("<mend:access_token:"))

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in [recorded.accessToken.tokenString, recorded.idToken ?? "-", recorded.refreshToken ?? "-"]
        where secret != "-" {
            #expect(!text.contains(secret))
            #expect(!text.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])))
        }
        // The id_token's template: claim names kept, the personal ones and the nonce placeholders, no signature.
        let document = try HARDocument(data: Data(contentsOf: file))
        let templates = document.entries.compactMap { $0.mend?.jwts }.flatMap(\.values)
        let claims = try #require(templates.first?["claims"])
        #expect(claims["nonce"]?.stringValue?.hasPrefix("<mend:nonce:") == true)
        #expect(claims["iss"] != nil && claims["aud"] != nil && claims["exp"] != nil)
        if let email = claims["email"] { #expect(email.stringValue?.hasPrefix("<mend:email:") == true) }
    }
}
