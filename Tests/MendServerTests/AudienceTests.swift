import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// The access tokens' `aud`: a setting of its own (`MEND_AUDIENCE`), the app id when unset.
@Suite struct AudienceTests {
    /// The `aud` claim of a session access token (read without verifying: the server verifies it below).
    static func audience(of token: String) throws -> String? {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let payload = try #require(Base64URL.decode(parts[1]))
        guard case .success(let claims) = JSONValue.parse(payload) else { return nil }
        return claims["aud"]?.stringValue
    }

    @Test(arguments: [nil, "https://api.example"])
    func accessTokensCarryTheConfiguredAudience(_ audience: String?) async throws {
        try await TestStack.run(configure: { $0.sessions.audience = audience }) { stack in
            let session = try await stack.login()
            let token = try #require(session["access_token"]?.stringValue)
            #expect(try Self.audience(of: token) == (audience ?? stack.emulator.emulator.configuration.defaultApp.id))
            // The server accepts its own tokens whatever their audience.
            let checked = try await stack.client.get("/v1/session", bearer: token)
            #expect(checked.head.status == .ok)
        }
    }
}
