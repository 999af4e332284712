import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendFacebook
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendTesting
import Testing

/// Device login (the provider's `device/login`, and RFC 8628 at the Google-like issuer) end to end against the
/// emulator: a frozen emulator clock that the test clock moves by exactly what the client slept, so nothing waits
/// out a real interval and both sides agree on the time.
@Suite("Device login: approve, decline, expire, slow down, transient failures")
struct DeviceLoginTests {
    static let appID = EmulatedApp.default.id
    static let clientToken = EmulatedApp.default.clientToken

    static func configuration(autoConsent: AutoConsent = .manual) -> EmulatorConfiguration {
        EmulatorConfiguration(
            autoConsent: autoConsent, clockMode: .frozen)
    }

    /// A clock that moves the emulator by what the client slept, then runs `then` with the sleep's number.
    static func clock(
        _ emulator: RunningEmulator, then: (@Sendable (Int) async throws -> Void)? = nil
    ) -> TestClock {
        TestClock { slept, count in
            _ = await emulator.advanceClock(by: slept.timeInterval)
            try await then?(count)
        }
    }

    static func facebook(_ emulator: RunningEmulator, clock: TestClock) -> DeviceLogin {
        DeviceLogin(
            provider: .emulator(baseURL: emulator.baseURL, appID: appID), clientToken: clientToken,
            transport: AsyncHTTPClientTransport(), clock: clock.pipeline())
    }

    @Test("Approved between the first and the second poll: a long-lived session, the user, the permissions granted")
    func approve() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let code = Shared<String?>(nil)
            let clock = Self.clock(emulator) { count in
                if count == 2, let userCode = code.value {
                    try await emulator.emulator.answerDeviceLogin(
                        userCode: userCode, approve: true, scopes: ["public_profile"])
                }
            }
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile", "email"])
            code.value = authorization.userCode
            #expect(authorization.userCode.count == 8)
            #expect(authorization.verificationURI == emulator.url("/device"))
            #expect(authorization.interval == .seconds(5))
            #expect(authorization.expiresIn == .seconds(420))
            #expect(!"\(authorization)".contains("deviceCode"))

            let result = try await device.waitForApproval(authorization)
            let session = try #require(result.session)
            #expect(!result.isCancelled)
            #expect(session.user?.name == TestUser.defaults[0].name)
            #expect(session.accessToken.permissions == ["public_profile"])
            #expect(session.accessToken.declinedPermissions == ["email"])
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
            // The token works at the Graph API, and the code cannot be used again.
            let graph = GraphClient(
                transport: AsyncHTTPClientTransport(),
                configuration: .init(graphURL: emulator.baseURL, version: GraphAPI.defaultVersion))
            struct Me: Decodable { var id: String }
            let me = try await graph.send(
                GraphRequest(path: "me", tokenOverride: session.accessToken.tokenString), as: Me.self)
            #expect(me.id == TestUser.defaults[0].id)
            #expect(await emulator.emulator.deviceLogins().map(\.answer) == ["used"])
        }
    }

    @Test("Declined on the device page: a cancelled result (declined), not an error")
    func decline() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let code = Shared<String?>(nil)
            let clock = Self.clock(emulator) { count in
                if count == 1, let userCode = code.value {
                    try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: false)
                }
            }
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile"])
            code.value = authorization.userCode
            let result = try await device.waitForApproval(authorization)
            #expect(result.isCancelled)
            #expect(result.cancellation == .declined)
            #expect(result.session == nil)
            #expect(LoginResult.Cancellation.declined.messageKey == .deviceLoginDeclined)
        }
    }

    @Test("Never entered: the code expires on the device's clock, a cancelled result (expired), no poll after expiry")
    func expireOnTheDevice() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let clock = Self.clock(emulator)
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile"])
            let result = try await device.waitForApproval(authorization)
            #expect(result.cancellation == .expired)
            #expect(clock.sleeps.reduce(.zero, +) == .seconds(420))
            let polls = await emulator.requestLog().filter { $0.path.hasSuffix("/device/login_status") }
            #expect(polls.count == 84)
            #expect(polls.allSatisfy { $0.status == 400 })
        }
    }

    @Test("The provider says the code expired (1349152) before the device thinks so: a cancelled result (expired)")
    func expireAtTheProvider() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            // The provider's clock runs 500 s ahead of the device's after the first wait.
            let clock = Self.clock(emulator) { count in
                if count == 1 { _ = await emulator.advanceClock(by: 500) }
            }
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile"])
            let result = try await device.waitForApproval(authorization)
            #expect(result.cancellation == .expired)
            #expect(clock.sleeps == [.seconds(5)])
        }
    }

    @Test("Slow down (1349172): each one adds 5 s to every later wait (not doubled), and the provider agrees")
    func slowDown() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let code = Shared<String?>(nil)
            let events = Shared<[DeviceLogin.Progress]>([])
            // The device's clock runs fast twice: its second and fourth waits are 2 s for the provider, so the
            // polls after them come too soon. Approved after the fifth wait.
            let clock = TestClock { slept, count in
                _ = await emulator.advanceClock(by: count == 2 || count == 4 ? 2 : slept.timeInterval)
                if count == 5, let userCode = code.value {
                    try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: true)
                }
            }
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile"])
            code.value = authorization.userCode
            let result = try await device.waitForApproval(authorization) { event in
                events.withLock { $0.append(event) }
            }
            #expect(result.session != nil)
            // 5 → 10 → 15: RFC 8628 §3.5 adds 5 s; doubling would wait 20 s the last time.
            #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10), .seconds(15)])
            let slowDowns = events.value.filter { if case .slowedDown = $0 { true } else { false } }
            #expect(slowDowns == [.slowedDown(interval: .seconds(10)), .slowedDown(interval: .seconds(15))])
            #expect(await emulator.emulator.deviceLogins().first?.interval == 15)
        }
    }

    @Test("A poll that fails with a 503 is waited out at the interval; the login still succeeds")
    func transientPollFailure() async throws {
        try await withEmulator(configuration: Self.configuration(autoConsent: .grantAll)) { emulator in
            _ = try await emulator.inject(
                FaultRule(kind: .status, path: "/device/login_status", status: 503, times: 1))
            let events = Shared<[DeviceLogin.Progress]>([])
            let clock = Self.clock(emulator)
            let device = Self.facebook(emulator, clock: clock)
            let authorization = try await device.start(scopes: ["public_profile", "email"])
            let result = try await device.waitForApproval(authorization) { event in
                events.withLock { $0.append(event) }
            }
            #expect(result.session?.accessToken.permissions == ["public_profile", "email"])
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
            #expect(events.value.contains { if case .pollFailed = $0 { true } else { false } })
        }
    }

    @Test("Cancelling the waiting task throws CancellationError and stores nothing")
    func cancellation() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let device = Self.facebook(emulator, clock: Self.clock(emulator))
            let authorization = try await device.start(scopes: ["public_profile"])
            let task = Task { try await device.waitForApproval(authorization) }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test("A wrong client token is the provider's classified error (graph/190), not a hang")
    func wrongClientToken() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let device = DeviceLogin(
                provider: .emulator(baseURL: emulator.baseURL, appID: Self.appID), clientToken: "not-the-token",
                transport: AsyncHTTPClientTransport(), clock: Self.clock(emulator).pipeline())
            let error = await #expect(throws: MendError.self) { try await device.start(scopes: ["public_profile"]) }
            #expect(error?.code == MendError.Code(.graph, 190))
            let missing = DeviceLogin(
                provider: .emulator(baseURL: emulator.baseURL, appID: Self.appID), transport: AsyncHTTPClientTransport()
            )
            let noToken = await #expect(throws: MendError.self) { try await missing.start(scopes: ["public_profile"]) }
            #expect(noToken?.code == .Login.unknown)
        }
    }

    @Test("RFC 8628 at the Google-like issuer: discovery names the endpoint, the person approves on the device page")
    func googleDevicePage() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let transport = AsyncHTTPClientTransport()
            let issuer = emulator.url("/google")
            let provider = try await LoginProvider.discover(
                issuer: issuer, clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            #expect(provider.deviceAuthorizationEndpoint == emulator.url("/google/device/code"))
            let code = Shared<String?>(nil)
            let clock = Self.clock(emulator) { count in
                guard count == 1, let userCode = code.value else { return }
                // The person opens the page, enters the code (with a dash, in lower case), and continues.
                let page = await EmulatedIssuerTests.send(emulator, .get, "/device")
                #expect(String(decoding: page.body, as: UTF8.self).contains("user_code"))
                let typed = userCode.prefix(4).lowercased() + "-" + userCode.dropFirst(4).lowercased()
                let consent = await EmulatedIssuerTests.send(emulator, .get, "/device?user_code=\(typed)")
                #expect(consent.status == .ok)
                let answer = await EmulatedIssuerTests.send(
                    emulator, .post, "/device/confirm",
                    form: [
                        ("dialog_id", userCode), ("decision", "continue"), ("scope_openid", "1"),
                        ("scope_email", "1"), ("scope_profile", "1"),
                    ])
                #expect(String(decoding: answer.body, as: UTF8.self).contains("You're connected"))
            }
            let device = DeviceLogin(
                provider: provider, transport: transport,
                idTokenValidator: IDTokenValidator(
                    issuer: issuer.absoluteString, clientID: EmulatedIssuerTests.googleIOS,
                    jwksURI: try #require(provider.jwksURI), transport: transport),
                clock: clock.pipeline())
            let authorization = try await device.start(scopes: ["openid", "email", "profile"])
            code.value = authorization.userCode
            #expect(authorization.verificationURIComplete != nil)
            let result = try await device.waitForApproval(authorization)
            let session = try #require(result.session)
            #expect(session.refreshToken != nil)
            #expect(session.idToken != nil)
            #expect(session.user?.email != nil)
            #expect(await emulator.emulator.deviceLogins().map(\.wire) == ["rfc8628"])
        }
    }

    @Test(
        "RFC 8628 at a provider that speaks DPoP: every poll proves the login's key, the session is bound and its requests prove it"
    )
    func googleDeviceBound() async throws {
        var configuration = Self.configuration()
        configuration.issuerDPoP = true
        try await withEmulator(configuration: configuration) { emulator in
            // Nonces required: the first poll is challenged and sent again with the nonce.
            await emulator.emulator.setIssuerDPoP(requireNonce: true)
            let transport = AsyncHTTPClientTransport()
            let provider = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            #expect(provider.dpopSigningAlgorithms == ["ES256"])
            let code = Shared<String?>(nil)
            let device = DeviceLogin(
                provider: provider, transport: transport,
                clock: Self.clock(emulator) { count in
                    if count == 1, let userCode = code.value {
                        try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: true)
                    }
                }.pipeline())
            let authorization = try await device.start(scopes: ["openid", "email", "profile"])
            code.value = authorization.userCode
            let session = try #require(try await device.waitForApproval(authorization).session)
            let key = try #require(session.proofKey, "the provider bound the session: it keeps its key")
            #expect(try DPoPSessionProofs().credential(for: session).isProofBound)

            // The emulator bound the token to that key: as Bearer it is refused.
            let asBearer = await EmulatedIssuerDPoPTests.send(
                emulator, .get, "/google/v1/userinfo",
                headers: [.authorization: "Bearer \(session.accessToken.tokenString)"])
            #expect(asBearer.status == .unauthorized)
            // The session's own request (userinfo, through the provider's authority) carries a proof, and passes.
            await emulator.emulator.clearRequestLog()
            let authority = OIDCSessionAuthority(provider: provider, transport: transport)
            try await authority.checkValidity(of: session)
            #expect(await EmulatedIssuerDPoPTests.requests(emulator, to: "/google/v1/userinfo") >= 1)
            // A refresh proves the same key and stays bound to it.
            let refreshed = try await authority.refresh(session)
            #expect(refreshed.proofKey == key)
        }
        // The same provider with the app opting out: a bearer session, no proofs.
        try await withEmulator(configuration: configuration) { emulator in
            let transport = AsyncHTTPClientTransport()
            let provider = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            let code = Shared<String?>(nil)
            var device = DeviceLogin(
                provider: provider, transport: transport,
                clock: Self.clock(emulator) { count in
                    if count == 1, let userCode = code.value {
                        try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: true)
                    }
                }.pipeline())
            device.binding = .bearer
            let authorization = try await device.start(scopes: ["openid"])
            code.value = authorization.userCode
            let session = try #require(try await device.waitForApproval(authorization).session)
            #expect(session.proofKey == nil)
        }
    }

    @Test("RFC 8628 answers map like the provider's: access_denied is declined, expired_token is expired")
    func googleDeclineAndExpire() async throws {
        try await withEmulator(configuration: Self.configuration()) { emulator in
            let transport = AsyncHTTPClientTransport()
            let provider = try await LoginProvider.discover(
                issuer: emulator.url("/google"), clientID: EmulatedIssuerTests.googleIOS, transport: transport)
            let code = Shared<String?>(nil)
            let declining = DeviceLogin(
                provider: provider, transport: transport,
                clock: Self.clock(emulator) { count in
                    if count == 2, let userCode = code.value {
                        try await emulator.emulator.answerDeviceLogin(userCode: userCode, approve: false)
                    }
                }.pipeline())
            let first = try await declining.start(scopes: ["openid"])
            code.value = first.userCode
            #expect(try await declining.waitForApproval(first).cancellation == .declined)

            let expiring = DeviceLogin(
                provider: provider, transport: transport,
                clock: Self.clock(emulator) { count in
                    if count == 1 { _ = await emulator.advanceClock(by: 1_000) }
                }.pipeline())
            let second = try await expiring.start(scopes: ["openid"])
            #expect(try await expiring.waitForApproval(second).cancellation == .expired)
        }
    }
}

/// A value behind a lock, for the tests' callbacks.
final class Shared<Value: Sendable>: @unchecked Sendable {
    // Safe: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}
