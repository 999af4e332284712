import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendHTTP
import MendRecording
import MendTesting
import Testing

@testable import MendServer

/// mend-server's provider calls recorded as HAR (`MEND_PROVIDER_RECORDING`), every secret redacted.
@Suite struct ProviderRecordingTests {
    @Test("A login's provider calls are recorded: the code exchange and debug_token, with no secret in the file")
    func recordsProviderCalls() async throws {
        let file = temporaryDirectory().appendingPathComponent("provider.har")
        try await TestStack.run(configure: { $0.providers.recording = (file, .all) }) { stack in
            let body = try await stack.emulator.loginCodeBody()
            let session = try await stack.client.post("/v1/login/code", json: body).json()
            let userID = try #require(session["user"]?["id"]?.stringValue)
            let stored = try #require(
                try await stack.server.backend.store.identities.identity(provider: "facebook", userID: userID)?
                    .providerToken)
            let document = try HARDocument(data: Data(contentsOf: file))
            let paths = document.entries.map(\.request.url)
            #expect(paths.contains { $0.contains("/oauth/access_token") })
            #expect(paths.contains { $0.contains("/debug_token") })
            let text = try String(contentsOf: file, encoding: .utf8)
            let secrets = [
                try #require(body["code"]?.stringValue), try #require(body["code_verifier"]?.stringValue),
                stack.emulator.emulator.configuration.defaultApp.secret, stored,
            ]
            for secret in secrets {
                #expect(!text.contains(secret), "raw")
                #expect(!text.contains(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!), "URL")
                #expect(!text.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])), "base64")
            }
            #expect(text.contains("<mend:client_secret:1>") || text.contains("%3Cmend%3Aclient_secret%3A1%3E"))
        }
    }

    @Test(
        "A recorded provider failure is classified as its API's client would: an issuer's OAuth error as oauth, Graph's as graph",
        arguments: [
            (#"{"error":"invalid_grant","error_description":"expired"}"#, "oauth", 3),
            (#"{"error":{"message":"x","type":"OAuthException","code":190,"error_subcode":463}}"#, "graph", 190),
        ])
    func providerFailuresAreClassifiedByTheirAPI(body: String, domain: String, code: Int) throws {
        let error = try #require(
            ProviderErrorDecoder().decodeError(
                response: HTTPResponse(status: .badRequest), body: Data(body.utf8),
                context: ErrorDecodingContext(
                    catalog: ErrorCatalog.graph.addingMissing(ProviderErrorDecoder().errorSpaces))))
        #expect(error.domain.rawValue == domain && error.code.rawValue == code, "\(error)")
    }
}
