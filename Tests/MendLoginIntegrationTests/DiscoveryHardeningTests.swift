import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

private let attempt = AuthorizationTransaction(
    state: "st4te-abcdefghijklmnopqrstuv", nonce: "n0nce", codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    redirectURI: URL(string: "http://127.0.0.1:53682/callback")!, scopes: ["openid"], isRerequest: false,
    createdAt: Date(timeIntervalSince1970: 0))
private let callback = "http://127.0.0.1:53682/callback"
private let providerIssuer = "https://issuer.example"

@Suite("RFC 9207: a provider that always sends iss")
struct AuthorizationResponseIssuerTests {
    private func parse(_ query: String, expectedIssuer: String? = providerIssuer) throws(MendError) -> RedirectOutcome {
        try RedirectParser.parse(
            "\(callback)?\(query)", transaction: attempt, expectedIssuer: expectedIssuer, requiresIssuer: true)
    }

    @Test(
        "A redirect without iss, or with another iss, is refused as login/308 — an error response too",
        arguments: [
            "code=abc&state=\(attempt.state)",
            "code=abc&state=\(attempt.state)&iss=https%3A%2F%2Fevil.example",
            "code=abc&state=\(attempt.state)&iss=https%3A%2F%2Fissuer.example%2F",
            "code=abc&state=\(attempt.state)&iss=",
            "error=access_denied&error_reason=user_denied&state=\(attempt.state)",
            "error=server_error&state=\(attempt.state)&iss=https%3A%2F%2Fevil.example",
        ])
    func refused(query: String) throws {
        let error = try #require(throws: MendError.self) { try parse(query) }
        #expect(error.code == .Login.badChallengeString, "\(error)")
        #expect(error.isSecuritySensitive)
    }

    @Test("The provider's own iss passes, for an answer and for a cancellation")
    func accepted() throws {
        let iss = "iss=https%3A%2F%2Fissuer.example"
        #expect(
            try parse("code=abc&state=\(attempt.state)&\(iss)")
                == .authorized(code: "abc", grantedScopes: nil, deniedScopes: nil))
        #expect(try parse("error=access_denied&error_reason=user_denied&state=\(attempt.state)&\(iss)") == .cancelled)
    }

    @Test("Required without a known issuer, every redirect is refused")
    func noExpectedIssuer() throws {
        let error = try #require(throws: MendError.self) {
            try parse("code=abc&state=\(attempt.state)&iss=https%3A%2F%2Fissuer.example", expectedIssuer: nil)
        }
        #expect(error.code == .Login.badChallengeString)
    }

    @Test("A provider that does not advertise iss may leave it out")
    func notRequired() throws {
        #expect(
            try RedirectParser.parse(
                "\(callback)?code=abc&state=\(attempt.state)", transaction: attempt, expectedIssuer: providerIssuer)
                == .authorized(code: "abc", grantedScopes: nil, deniedScopes: nil))
    }
}

/// A discovery document naming `issuer`, with every endpoint under `base`.
private func document(
    issuer: String?, base: String? = nil, issParameter: Bool? = nil, overrides: [String: String?] = [:]
) -> String {
    let root = base ?? issuer ?? providerIssuer
    var members: [String: JSONValue] = [
        "authorization_endpoint": .string("\(root)/authorize"), "token_endpoint": .string("\(root)/token"),
        "jwks_uri": .string("\(root)/jwks"), "revocation_endpoint": .string("\(root)/revoke"),
    ]
    if let issuer { members["issuer"] = .string(issuer) }
    if let issParameter { members["authorization_response_iss_parameter_supported"] = .bool(issParameter) }
    for (name, value) in overrides { members[name] = value.map(JSONValue.string) }
    return JSONValue.object(members).jsonText()
}

private func discover(_ url: String, serving body: String) async throws -> (LoginProvider, InMemoryTransport) {
    let transport = InMemoryTransport { _, _ in .json(200, body) }
    let provider = try await LoginProvider.discover(
        issuer: URL(string: url)!, clientID: "client-1", transport: transport)
    return (provider, transport)
}

@Suite("Discovery trusts a document only as far as it can check it")
struct DiscoveryHardeningTests {
    @Test("authorization_response_iss_parameter_supported sets requiresAuthorizationResponseIssuer")
    func issParameter() async throws {
        let (supported, _) = try await discover(
            providerIssuer, serving: document(issuer: providerIssuer, issParameter: true))
        #expect(supported.requiresAuthorizationResponseIssuer)
        #expect(supported.issuer == providerIssuer)
        for flag in [false, nil] {
            let (provider, _) = try await discover(
                providerIssuer, serving: document(issuer: providerIssuer, issParameter: flag))
            #expect(!provider.requiresAuthorizationResponseIssuer)
        }
    }

    @Test(
        "A plain-http issuer is refused before any request, unless it is a loopback IP literal",
        arguments: [
            "http://issuer.example", "http://localhost:8080", "http://127.0.0.2.example:80", "ftp://issuer.example",
        ])
    func insecureIssuer(url: String) async throws {
        let transport = InMemoryTransport { _, _ in .json(200, document(issuer: url)) }
        let error = try await #require(throws: MendError.self) {
            try await LoginProvider.discover(issuer: URL(string: url)!, clientID: "client-1", transport: transport)
        }
        #expect(error.code == .Transport.invalidRequest, "\(error)")
        #expect(transport.requestCount == 0)
    }

    @Test(
        "Loopback http (127.0.0.1, [::1]) is allowed: the emulator, tests",
        arguments: ["http://127.0.0.1:8080", "http://[::1]:8080"])
    func loopback(url: String) async throws {
        let (provider, _) = try await discover(url, serving: document(issuer: url))
        #expect(provider.tokenEndpoint.absoluteString == "\(url)/token")
    }

    @Test(
        "A document naming a plain-http endpoint is refused",
        arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri", "revocation_endpoint"])
    func insecureEndpoint(name: String) async throws {
        let body = document(issuer: providerIssuer, overrides: [name: "http://issuer.example/\(name)"])
        let error = try await #require(throws: MendError.self) { try await discover(providerIssuer, serving: body) }
        #expect(error.code == .Login.invalidDiscoveryDocument, "\(error)")
        #expect(error.category == .other && error.recovery.action == .fixConfiguration)
        let localhost = document(issuer: providerIssuer, overrides: [name: "http://localhost/\(name)"])
        await #expect(throws: MendError.self) { try await discover(providerIssuer, serving: localhost) }
    }

    @Test("From the document's URL, the document must name the issuer that URL belongs to")
    func documentURLIssuer() async throws {
        let url = "\(providerIssuer)/tenant/.well-known/openid-configuration"
        let (provider, transport) = try await discover(url, serving: document(issuer: "\(providerIssuer)/tenant"))
        #expect(provider.issuer == "\(providerIssuer)/tenant")
        #expect(transport.requests.first?.head.path == "/tenant/.well-known/openid-configuration")
        for declared in ["https://evil.example", providerIssuer, "\(providerIssuer)/tenant/other"] {
            let error = try await #require(throws: MendError.self) {
                try await discover(url, serving: document(issuer: declared))
            }
            #expect(error.code == .Login.invalidDiscoveryDocument, "\(error)")
        }
        let error = try await #require(throws: MendError.self) {
            try await discover(url, serving: document(issuer: nil, base: providerIssuer))
        }
        #expect(error.code == .Login.invalidDiscoveryDocument, "a document without an issuer")
    }

    @Test(
        "A document without the authorization or the token endpoint is refused",
        arguments: ["authorization_endpoint", "token_endpoint"])
    func missingEndpoint(name: String) async throws {
        let body = document(issuer: providerIssuer, overrides: [name: nil])
        let error = try await #require(throws: MendError.self) { try await discover(providerIssuer, serving: body) }
        #expect(error.code == .Login.invalidDiscoveryDocument, "\(error)")
    }

    @Test("From the issuer's URL, the document must name it (a trailing slash aside)")
    func issuerURL() async throws {
        let (provider, transport) = try await discover("\(providerIssuer)/", serving: document(issuer: providerIssuer))
        #expect(provider.issuer == providerIssuer)
        #expect(transport.requests.first?.head.path == "/.well-known/openid-configuration")
        await #expect(throws: MendError.self) {
            try await discover(providerIssuer, serving: document(issuer: "https://evil.example"))
        }
    }
}

@Suite("OpenID Connect discovery and RFC 9207 against the live emulator")
struct DiscoveryEmulatorTests {
    @Test("The emulator's default document (issuer https://www.facebook.com) does not speak for its own URL")
    func defaultIssuerRefused() async throws {
        try await withEmulator { emulator in
            let error = try await #require(throws: MendError.self) {
                try await LoginProvider.discover(
                    issuer: emulator.url("/.well-known/openid-configuration"), clientID: "client-1",
                    transport: AsyncHTTPClientTransport())
            }
            #expect(error.code == .Login.invalidDiscoveryDocument)
        }
    }

    @Test("An emulator whose issuer is its base URL: discovery by issuer, iss in the redirect, a validated id_token")
    func endToEnd() async throws {
        try await withEmulator(configuration: EmulatorConfiguration(issuer: EmulatorConfiguration.baseURLIssuer)) {
            emulator in
            let transport = AsyncHTTPClientTransport()
            let appID = emulator.emulator.configuration.defaultApp.id
            let provider = try await LoginProvider.discover(
                issuer: emulator.baseURL, clientID: appID, transport: transport)
            #expect(provider.issuer == emulator.baseURL.absoluteString)
            #expect(provider.requiresAuthorizationResponseIssuer)
            let validator = IDTokenValidator(
                issuer: try #require(provider.issuer), clientID: appID, jwksURI: try #require(provider.jwksURI),
                transport: transport)
            let store = InMemoryTokenStore()
            let login = LoginManager(
                provider: provider,
                credentials: CredentialsManager(
                    store: store,
                    authority: provider.dialect.sessionAuthority(
                        for: provider, transport: transport, idTokenValidator: validator)),
                defaultScopes: ["openid", "public_profile"])
            let session = try #require(try await login.logIn(presenter: presenter(.grantAll)).session)
            #expect(session.idToken != nil)
            #expect(session.user?.id == emulator.emulator.configuration.users[0].id)
            #expect(try await store.read() != nil)
            #expect(try await login.logIn(presenter: presenter(.cancel)).isCancelled)
        }
    }

    @Test("Mix-up: a redirect whose iss is not the expected provider's is refused; nothing is stored")
    func mixUp() async throws {
        try await withEmulator { emulator in
            var provider = LoginProvider.emulator(
                baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
                version: emulator.emulator.configuration.graphVersion)
            #expect(provider.requiresAuthorizationResponseIssuer)
            provider.issuer = "https://honest.example"
            let store = InMemoryTokenStore()
            let login = LoginManager(
                provider: provider,
                credentials: CredentialsManager(
                    store: store,
                    authority: provider.dialect.sessionAuthority(
                        for: provider, transport: AsyncHTTPClientTransport(), idTokenValidator: nil)))
            let error = try await #require(throws: MendError.self) {
                try await login.logIn(presenter: presenter(.grantAll))
            }
            #expect(error.code == .Login.badChallengeString)
            #expect(try await store.read() == nil)
            let cancelled = try await #require(throws: MendError.self) {
                try await login.logIn(presenter: presenter(.cancel))
            }
            #expect(cancelled.code == .Login.badChallengeString, "a refusal is believed only from the provider")
        }
    }
}
