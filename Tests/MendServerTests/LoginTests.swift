import Crypto
import Foundation
import HTTPTypes
import Logging
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendLogin
import MendSignedRequest
import MendTesting
import Testing

@testable import MendServer

/// `POST /v1/login/code` against the live emulator, on SQLite and PostgreSQL, through a plain MendHTTP client that
/// decodes the server's errors with `MendServiceErrorDecoder`.
@Suite struct LoginTests {
    static let redirect = "https://app.example/callback"

    @Test(arguments: TestDatabase.available)
    func logsInAndReturnsTheSession(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            #expect(session["token_type"]?.stringValue == "Bearer")
            #expect(session["expires_in"]?.intValue == 900)
            #expect(session["refresh_expires_in"]?.intValue == 2_592_000)
            #expect(session["access_token"]?.stringValue?.split(separator: ".").count == 3)
            #expect(session["refresh_token"]?.stringValue?.hasPrefix("mrt_") == true)
            #expect(session["provider_token"] == nil)
            // session_id is the family id: the access token's sid.
            let payload = try #require(
                session["access_token"]?.stringValue?.split(separator: ".").dropFirst().first
                    .flatMap { Base64URL.decode(String($0)) }
                    .flatMap { try? JSONValue.parse($0).get() })
            #expect(session["session_id"]?.stringValue?.hasPrefix("ses_") == true)
            #expect(session["session_id"] == payload["sid"])
            let user = try #require(session["user"])
            #expect(user["provider_user_id"]?.stringValue == "100000000000001")
            #expect(user["name"]?.stringValue == "Alice Example")
            #expect(user["email"]?.stringValue == "alice@example.com")
            #expect(user["picture"]?.stringValue?.isEmpty == false)
            #expect(user["id"]?.stringValue?.isEmpty == false)
            #expect(Set(session["granted_scopes"]?.strings ?? []) == ["public_profile", "email"])
            #expect(session["declined_scopes"]?.strings == [])

            // The server used the secret, debug_token, the long-lived exchange and appsecret_proof.
            let paths = await stack.emulator.requestLog().map(\.path)
            #expect(paths.contains { $0.hasSuffix("/oauth/access_token") })
            #expect(paths.contains { $0.hasSuffix("/debug_token") })
            #expect(paths.contains { $0.hasSuffix("/me") })
            #expect(paths.contains { $0.hasSuffix("/me/permissions") })
        }
    }

    /// Failed before with a 500 (SQLiteError): the second login's new user took the Facebook id, which is unique,
    /// before its identity lost to the first one's (found by ShutdownTests under a full run).
    @Test(
        "Two first logins of one Facebook user at once open two sessions of one user", arguments: TestDatabase.available
    )
    func concurrentFirstLogins(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let fault = try await stack.emulator.inject(
                FaultRule(kind: .delay, path: "/debug_token", delayMilliseconds: 300))
            let bodies = [try await stack.emulator.loginCodeBody(), try await stack.emulator.loginCodeBody()]
            let logins = bodies.map { body in
                Task { try await stack.client.post("/v1/login/code", json: body).json() }
            }
            // Both are past the code exchange, waiting on debug_token, before either writes a user.
            while await stack.emulator.emulator.faults().first(where: { $0.id == fault.id })?.hits ?? 0 < 2 {
                await Task.yield()
            }
            var users: Set<String> = []
            for login in logins {
                let session = try await login.value
                users.insert(try #require(session["user"]?["id"]?.stringValue))
            }
            #expect(users.count == 1)
            let userID = try #require(users.first)
            #expect(
                try await stack.server.backend.store.identities.identities(userID: userID).map(\.provider) == [
                    "facebook"
                ])
            #expect(
                try await stack.server.backend.store.identities.user(id: userID)?.providerUserID == "100000000000001")

            // The race itself, eight at once on a new Facebook identity: each finds no identity, creates a user, and
            // all but one lose the identity and take the winner's user.
            let identity = IdentityClaims(provider: "facebook", subject: "100000000000099")
            let providerLogins = stack.server.backend.logins
            let found = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await providerLogins.user(
                            for: identity, name: "Eve", linkingTo: nil, logger: Logger(label: "t")
                        ).id
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(found.count == 1)
            let eve = try #require(found.first)
            #expect(try await stack.server.backend.store.identities.user(id: eve)?.providerUserID == "100000000000099")
        }
    }

    @Test func aSecondLoginUpdatesTheSameUser() async throws {
        try await TestStack.run { stack in
            let first = try await stack.login()
            let second = try await stack.login(scopes: ["public_profile", "email", "user_friends"], grant: ["email"])
            #expect(first["user"]?["id"] == second["user"]?["id"])
            #expect(second["declined_scopes"]?.strings == ["user_friends"])
            let carol = try await stack.login(userID: "100000000000003")
            #expect(carol["user"]?["id"] != first["user"]?["id"])
            #expect(carol["user"]?["email"] == .null)
        }
    }

    @Test func returnsTheProviderTokenOnlyWhenConfigured() async throws {
        try await TestStack.run(configure: { $0.providers.returnsProviderToken = true }) { stack in
            let session = try await stack.login()
            let token = try #require(session["provider_token"]?.stringValue)
            #expect(token.hasPrefix("EAA"))
            // It is the long-lived token: the emulator knows it.
            let inspect = await stack.emulator.emulator.handle(
                EmulatorRequest(
                    method: .get,
                    target:
                        "/debug_token?input_token=\(token)&access_token=111111111111111%7C0123456789abcdef0123456789abcdef"
                ))
            #expect(
                inspect.json?["data"]?["expires_at"]?.intValue ?? 0 > Int(Date().timeIntervalSince1970) + 30 * 86400)
        }
    }

    @Test func logsInWithPKCE() async throws {
        try await TestStack.run { stack in
            let verifier = String(repeating: "v", count: 20) + "-PKCE-verifier-of-enough-length"
            let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
            let code = try await stack.emulator.authorizationCode(codeChallenge: challenge)
            let session = try await stack.client.post(
                "/v1/login/code",
                json: .object([
                    "code": .string(code), "code_verifier": .string(verifier), "redirect_uri": .string(Self.redirect),
                ])
            ).json()
            #expect(session["access_token"]?.stringValue != nil)

            // A wrong verifier is the provider's 100 (other), not a 500.
            let other = try await stack.emulator.authorizationCode(codeChallenge: challenge)
            let error = await stack.client.failure {
                try await stack.client.post(
                    "/v1/login/code",
                    json: .object([
                        "code": .string(other), "code_verifier": .string(String(repeating: "w", count: 50)),
                        "redirect_uri": .string(Self.redirect),
                    ]))
            }
            #expect(error?.code == .Graph.invalidParameter)
            #expect(error?.category == .other)
            #expect(error?.httpStatus == 400)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aReplayedCodeIsRefusedAndRevokesTheSessionItIssued(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let body = try await stack.emulator.loginCodeBody(redirectURI: Self.redirect)
            let session = try await stack.client.post("/v1/login/code", json: body).json()
            let access = try #require(session["access_token"]?.stringValue)
            _ = try await stack.client.get("/v1/session", bearer: access)

            let replay = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(replay?.code == .Graph.invalidParameter)
            #expect(replay?.subcode?.rawValue == 36009)
            #expect(replay?.category == .other)

            let revoked = await stack.client.failure { try await stack.client.get("/v1/session", bearer: access) }
            #expect(revoked?.isSession(.Session.revoked) == true)
            #expect(revoked?.developerMessage.contains("replayed") == true)
            let refresh = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
            #expect(refresh?.isSession(.Session.revoked) == true)
        }
    }

    @Test func refusesARedirectURIThatIsNotAllowed() async throws {
        try await TestStack.run { stack in
            let code = try await stack.emulator.authorizationCode()
            let error = await stack.client.failure {
                try await stack.client.post(
                    "/v1/login/code",
                    json: .object([
                        "code": .string(code), "code_verifier": .string(String(repeating: "v", count: 43)),
                        "redirect_uri": .string("https://evil.example/callback"),
                    ]))
            }
            #expect(error?.code == .REST.badRequest)
            #expect(error?.httpStatus == 400)
            #expect(error?.developerMessage.contains("redirect_uri") == true)
        }
    }

    @Test(
        "A code login without code_verifier is refused by default, before the code is spent; a server for confidential clients allows it"
    )
    func requiresPKCEByDefault() async throws {
        try await TestStack.run { stack in
            let code = try await stack.emulator.authorizationCode()
            let body = JSONValue.object(["code": .string(code), "redirect_uri": .string(Self.redirect)])
            let error = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(error?.code == .REST.badRequest)
            #expect(error?.httpStatus == 400)
            #expect(error?.developerMessage.contains("code_verifier is required") == true)
            // The code was not claimed: the same body is refused for the same reason, not as a replayed code.
            let again = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(again?.developerMessage.contains("code_verifier is required") == true)
        }
        try await TestStack.run(configure: { $0.sessions.requiresPKCE = false }) { stack in
            let code = try await stack.emulator.authorizationCode()
            let body = JSONValue.object(["code": .string(code), "redirect_uri": .string(Self.redirect)])
            let session = try await stack.client.post("/v1/login/code", json: body).json()
            #expect(session["access_token"]?.stringValue != nil)
        }
    }

    @Test func refusesMalformedBodies() async throws {
        try await TestStack.run { stack in
            for body in [JSONValue.object([:]), .object(["code": .string("x")]), .array([])] {
                let error = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
                #expect(error?.code == .REST.badRequest)
            }
        }
    }

    @Test func refusesATokenIssuedForAnotherApp() async throws {
        try await TestStack.run { stack in
            let forged =
                #"{"data":{"app_id":"999999999999999","type":"USER","application":"Other","is_valid":true,"user_id":"100000000000001","scopes":["public_profile","email"],"expires_at":0}}"#
            try await stack.emulator.inject(
                FaultRule(
                    kind: .status, path: "/debug_token", status: 200, body: forged, contentType: "application/json"))
            let error = await stack.client.failure { try await stack.login() }
            #expect(error?.code == .Graph.accessTokenInvalid)
            #expect(error?.subcode == .invalidAccessToken)
            #expect(error?.developerMessage.contains("999999999999999") == true)
            #expect(error?.httpStatus == 401)
        }
    }

    @Test func refusesALoginMissingARequiredScope() async throws {
        try await TestStack.run(configure: { $0.providers.facebook?.requiredScopes = ["email", "user_friends"] }) {
            stack in
            let error = await stack.client.failure { try await stack.login() }
            #expect(error?.code == .Graph.permissionMissing)
            #expect(error?.category == .recoverable)
            #expect(error?.recovery.action == .requestPermissions)
            #expect(error?.recovery.permissions == ["user_friends"])
            #expect(error?.httpStatus == 403)
        }
    }

    @Test("An error body never carries the app secret, even when the provider's message echoes it")
    func errorBodiesNeverCarryTheAppSecret() async throws {
        try await TestStack.run { stack in
            let secret = stack.emulator.emulator.configuration.defaultApp.secret
            let echo =
                #"{"error":{"message":"Error validating client secret \#(secret)","type":"OAuthException","code":1}}"#
            try await stack.emulator.inject(
                FaultRule(
                    kind: .status, path: "/*/oauth/access_token", status: 400, body: echo,
                    contentType: "application/json"))
            let error = try #require(await stack.client.failure { try await stack.login() })
            #expect(error.developerMessage.contains("Error validating client secret"), "\(error.developerMessage)")
            #expect(!error.developerMessage.contains(secret))
            #expect(error.response?.body?.contains(secret) != true)
        }
    }

    @Test("A refused debug_token verdict is logged without the app secret its message echoes")
    func refusedVerdictLogsNoSecret() async throws {
        let capture = LogCapture()
        var logger = capture.logger(label: "mend.server", level: .trace)
        logger.logLevel = .trace
        try await TestStack.run(logger: logger) { stack in
            let secret = stack.emulator.emulator.configuration.defaultApp.secret
            let dead =
                #"{"data":{"app_id":"111111111111111","type":"USER","is_valid":false,"user_id":"100000000000001","scopes":[],"error":{"code":190,"subcode":460,"message":"Invalid for client secret \#(secret)"}}}"#
            try await stack.emulator.inject(
                FaultRule(kind: .status, path: "/debug_token", status: 200, body: dead, contentType: "application/json")
            )
            let error = await stack.client.failure { try await stack.login() }
            #expect(error?.matches(.Graph.accessTokenInvalid, .passwordChanged) == true)
            #expect(capture.text.contains("login refused by debug_token"))
            #expect(!capture.text.contains(secret))
        }
    }

    @Test func refusesAnInvalidTokenWithTheProvidersReason() async throws {
        try await TestStack.run { stack in
            let dead =
                #"{"data":{"app_id":"111111111111111","type":"USER","is_valid":false,"user_id":"100000000000001","scopes":[],"error":{"code":190,"subcode":460,"message":"The session has been invalidated because the user changed their password."}}}"#
            try await stack.emulator.inject(
                FaultRule(kind: .status, path: "/debug_token", status: 200, body: dead, contentType: "application/json")
            )
            let error = await stack.client.failure { try await stack.login() }
            #expect(error?.matches(.Graph.accessTokenInvalid, .passwordChanged) == true)
            #expect(error?.category == .recoverable)
        }
    }
}
