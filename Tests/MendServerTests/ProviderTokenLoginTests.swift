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

@testable import MendServer

/// `POST /v1/login/provider-token`: a provider access token the app got by itself — a device login's — becomes the
/// same app session as a code login, once `debug_token` says it is this app's, valid and a user's.
@Suite("Provider-token login (device login through the backend)", .serialized)
struct ProviderTokenLoginTests {
    @Test(
        "A device login's token opens a session for the same user a code login opens",
        arguments: TestDatabase.available)
    func deviceLoginThroughTheBackend(database: TestDatabase) async throws {
        let emulatorConfiguration = EmulatorConfiguration(autoConsent: .grantAll, deviceLoginInterval: 1)
        try await TestStack.run(database: database, emulatorConfiguration: emulatorConfiguration) { stack in
            let emulator = stack.emulator
            let clock = TestClock { slept, _ in _ = await emulator.advanceClock(by: slept.timeInterval) }
            let device = DeviceLogin(
                provider: .emulator(baseURL: emulator.baseURL, appID: EmulatedApp.default.id),
                clientToken: EmulatedApp.default.clientToken, transport: AsyncHTTPClientTransport(),
                clock: clock.pipeline())
            let result = try await device.waitForApproval(try await device.start(scopes: ["public_profile", "email"]))
            let providerToken = try #require(result.session?.accessToken.tokenString)

            let backend = BackendSessionClient(baseURL: stack.server.baseURL, transport: AsyncHTTPClientTransport())
            let session = try await backend.exchange(providerToken: providerToken)
            #expect(session.issuer == .backend)
            #expect(session.refreshToken != nil)
            let access = session.accessToken.tokenString
            #expect(session.proofKey != nil, "a Mend client's session is DPoP-bound by default")
            let me = try await APIClient(transport: AsyncHTTPClientTransport()).send(
                APIRequest(
                    method: .get, url: stack.server.baseURL.appendingPathComponent("v1/me"),
                    options: RequestOptions(credentialOverride: try DPoPSessionProofs().credential(for: session)))
            ).json()
            #expect(me["provider_user_id"]?.stringValue == TestUser.defaults[0].id)
            // The same person through the browser is the same user.
            let viaCode = try await stack.login()
            #expect(viaCode["user"]?["id"] == me["id"])
            // And the session refreshes like any other.
            let refreshed = try await backend.refresh(session)
            #expect(refreshed.accessToken.tokenString != access)
        }
    }

    @Test("Another app's token, an app token, an expired token and a malformed body are refused; no user is made")
    func refusals() async throws {
        let other = EmulatedApp(
            id: "222222222222222", secret: "fedcba98765432100123456789abcdef", name: "Another App",
            redirectURIs: ["https://other.example/callback"], clientToken: "other-client-token")
        let configuration = EmulatorConfiguration(apps: [.default, other])
        try await TestStack.run(emulatorConfiguration: configuration) { stack in
            func refused(_ token: String) async -> MendError? {
                await stack.client.failure {
                    try await stack.client.post(
                        "/v1/login/provider-token", json: .object(["provider_token": .string(token)]))
                }
            }
            let foreign = try await stack.emulator.emulator.issueToken(
                userID: TestUser.defaults[0].id, appID: other.id, scopes: ["public_profile"], lifetime: nil)
            let error = await refused(foreign)
            #expect(error?.response?.status == 401, "\(error?.developerMessage ?? "")")
            let appToken = "\(EmulatedApp.default.id)|\(EmulatedApp.default.secret)"
            #expect(await refused(appToken)?.response?.status == 401)
            let expiring = try await stack.emulator.token(lifetime: 60)
            _ = await stack.emulator.advanceClock(by: 61)
            #expect(await refused(expiring)?.response?.status == 401)
            let missing = await stack.client.failure {
                try await stack.client.post("/v1/login/provider-token", json: .object([:]))
            }
            #expect(missing?.response?.status == 400)
            #expect(
                try await stack.server.backend.store.identities.user(providerUserID: TestUser.defaults[0].id) == nil)
        }
    }
}
