import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// What mend-server sends the provider: secrets and one-time credentials travel in POST bodies, never in URLs
/// (proxies and access logs keep URLs).
@Suite struct ProviderGatewayTests {
    static let configuration = ServerConfiguration(
        appID: "111111111111111", appSecret: Secret("0123456789abcdef0123456789abcdef"), host: "127.0.0.1", port: 0,
        graphURL: URL(string: "http://127.0.0.1:9")!, graphVersion: "v25.0", databaseURL: "sqlite::memory:")

    @Test("The code exchange and the long-lived exchange POST their secrets in a form body")
    func exchangesPostTheirSecrets() async throws {
        let transport = InMemoryTransport(replies: [
            .json(200, #"{"access_token":"EAAshort","token_type":"bearer","expires_in":5183944}"#),
            .json(200, #"{"access_token":"EAAlong","token_type":"bearer","expires_in":5183944}"#),
        ])
        let configuration = Self.configuration
        let gateway = try ProviderGateway(
            app: #require(configuration.providers.facebook), providers: configuration.providers,
            clock: configuration.clock, transport: transport)
        let verifier = String(repeating: "v", count: 43)
        _ = try await gateway.exchangeCode(
            "AQcode-123", redirectURI: "https://app.example/callback", codeVerifier: verifier)
        _ = try await gateway.exchangeForLongLived("EAAshort")
        let requests = transport.requests
        #expect(requests.count == 2)
        let secrets = ["0123456789abcdef0123456789abcdef", "AQcode-123", verifier, "EAAshort"]
        for request in requests {
            #expect(request.head.method == .post)
            let target = request.head.path ?? ""
            #expect(target.hasSuffix("/oauth/access_token"), "\(target)")
            for secret in secrets { #expect(!target.contains(secret), "\(target) carries a secret") }
            #expect(request.head.headerFields[.contentType] == "application/x-www-form-urlencoded")
        }
        let codeForm = String(decoding: requests[0].body ?? Data(), as: UTF8.self)
        #expect(codeForm.contains("client_secret=0123456789abcdef0123456789abcdef"))
        #expect(codeForm.contains("code=AQcode-123"))
        #expect(codeForm.contains("code_verifier=\(verifier)"))
        let longForm = String(decoding: requests[1].body ?? Data(), as: UTF8.self)
        #expect(longForm.contains("fb_exchange_token=EAAshort"))
        #expect(longForm.contains("grant_type=fb_exchange_token"))
    }
}
