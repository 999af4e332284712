import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendHTTP
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// Pure policies: debug_token verdicts, redirect URIs, PKCE verifiers, rate-limit buckets, request ids, upstream
/// statuses.
@Suite struct PolicyTests {
    @Test func acceptsAValidTokenForThisApp() throws {
        let inspection = TokenInspection(
            isValid: true, appID: "111", userID: "u1", type: "USER", scopes: ["public_profile", "email"])
        let accepted = try inspection.verdict(appID: "111", requiredScopes: ["email"]).get()
        #expect(accepted.userID == "u1")
        #expect(accepted.scopes == ["public_profile", "email"])
    }

    @Test func refusesAnInvalidTokenWithTheProvidersReason() {
        let inspection = TokenInspection(
            isValid: false, appID: "111", userID: "u1", errorCode: 190, errorSubcode: 460,
            errorMessage: "password changed")
        guard case .failure(let error) = inspection.verdict(appID: "111", requiredScopes: []) else {
            Issue.record("accepted")
            return
        }
        #expect(error.matches(.Graph.accessTokenInvalid, .passwordChanged))
        #expect(error.category == .recoverable)
    }

    @Test func refusesATokenOfAnotherApp() {
        let inspection = TokenInspection(isValid: true, appID: "999", userID: "u1", type: "USER")
        guard case .failure(let error) = inspection.verdict(appID: "111", requiredScopes: []) else {
            Issue.record("accepted")
            return
        }
        #expect(error.matches(.Graph.accessTokenInvalid, .invalidAccessToken))
        #expect(error.developerMessage.contains("999"))
        #expect(error.isSecuritySensitive)
    }

    @Test func refusesAnAppToken() {
        let inspection = TokenInspection(isValid: true, appID: "111", userID: nil, type: "APP")
        guard case .failure = inspection.verdict(appID: "111", requiredScopes: []) else {
            Issue.record("accepted an app token")
            return
        }
    }

    @Test func namesTheMissingScopes() {
        let inspection = TokenInspection(isValid: true, appID: "111", userID: "u1", scopes: ["public_profile"])
        guard case .failure(let error) = inspection.verdict(appID: "111", requiredScopes: ["email", "user_friends"])
        else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .Graph.permissionMissing)
        #expect(error.recovery.action == .requestPermissions)
        #expect(error.recovery.permissions == ["email", "user_friends"])
    }

    @Test(arguments: [
        ("https://app.example/callback", true), ("https://app.example/callback/", false),
        ("https://app.example/other", false), ("http://127.0.0.1:53123/callback", true),
        ("http://127.0.0.1/callback", true), ("http://[::1]:8000/callback", false),
        ("http://localhost:9999/callback", true), ("http://127.0.0.1:53123/other", false),
        ("https://127.0.0.1:53123/callback", false), ("fb111://authorize", true), ("", false),
    ])
    func redirectURIs(_ uri: String, _ allowed: Bool) {
        let configured = [
            "https://app.example/callback", "http://127.0.0.1/callback", "http://localhost/callback",
            "fb111://authorize",
        ]
        #expect(RedirectURIPolicy.allows(uri, allowed: configured) == allowed)
    }

    @Test func codeVerifiers() {
        #expect(CodeVerifierRule.isValid(String(repeating: "a", count: 43)))
        #expect(CodeVerifierRule.isValid(String(repeating: "Z9-._~", count: 21)))
        #expect(!CodeVerifierRule.isValid(String(repeating: "a", count: 42)))
        #expect(!CodeVerifierRule.isValid(String(repeating: "a", count: 129)))
        #expect(!CodeVerifierRule.isValid(String(repeating: "a", count: 42) + "+"))
    }

    @Test func tokenBucketAllowsABurstThenWaits() {
        let rule = RateLimitRule(requests: 3, per: .seconds(60))
        var bucket = TokenBucket(rule: rule, now: 0)
        #expect(bucket.take(rule: rule, now: 0) == nil)
        #expect(bucket.take(rule: rule, now: 0) == nil)
        #expect(bucket.take(rule: rule, now: 0) == nil)
        let wait = bucket.take(rule: rule, now: 0)
        #expect(wait.map { abs($0 - 20) < 0.001 } == true)
        #expect(bucket.take(rule: rule, now: 20.001) == nil)
    }

    @Test func requestIDs() {
        #expect(RequestIdentifier.accept("abc-123_X.y") == "abc-123_X.y")
        let fresh = RequestIdentifier.accept("bad id with spaces")
        #expect(fresh.count == 24)
        #expect(RequestIdentifier.accept(String(repeating: "a", count: 65)).count == 24)
        #expect(RequestIdentifier.accept(nil) != RequestIdentifier.accept(nil))
        // New ids: 24 lower-case hex digits, none repeated over many.
        let made = (0..<10_000).map { _ in RequestIdentifier.make() }
        #expect(Set(made).count == made.count)
        #expect(made.allSatisfy { $0.utf8.count == 24 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
    }

    @Test("The log line's duration: milliseconds with two decimals, rounded half up")
    func logDurations() {
        #expect(OperationsMiddleware.milliseconds(.zero) == "0.00")
        #expect(OperationsMiddleware.milliseconds(.microseconds(1_234)) == "1.23")
        #expect(OperationsMiddleware.milliseconds(.microseconds(1_235)) == "1.24")
        #expect(OperationsMiddleware.milliseconds(.microseconds(50)) == "0.05")
        #expect(OperationsMiddleware.milliseconds(.microseconds(995)) == "1.00")
        #expect(OperationsMiddleware.milliseconds(.seconds(12.3456)) == "12345.60")
        #expect(OperationsMiddleware.milliseconds(.nanoseconds(-5)) == "0.00")
    }

    @Test func upstreamStatuses() {
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Graph.serviceUnavailable, catalog: .server))
                == .serviceUnavailable)
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Graph.invalidParameter, catalog: .server)) == .badRequest
        )
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Graph.accessTokenInvalid, catalog: .server))
                == .unauthorized)
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Graph.permissionMissing, catalog: .server)) == .forbidden
        )
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Transport.timedOut, catalog: .server)) == .gatewayTimeout
        )
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .Transport.connectionLost, catalog: .server))
                == .badGateway)
        #expect(
            ServerFailure.providerStatus(for: MendError(code: .HTTP.serviceUnavailable, catalog: .server))
                == .badGateway)
    }
}
