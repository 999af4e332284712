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

/// Every class of provider failure comes back classified (the provider's domain and code, its category, a matching
/// status), never as a bare 500, and is decoded by `MendServiceErrorDecoder` like any other error.
@Suite struct UpstreamFailureTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fault: FaultRule
        var domain: MendError.Domain
        var code: Int?
        var category: MendError.Category
        var status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "provider down at the code exchange", fault: .error("graph/2", path: "/oauth/access_token"),
            domain: .graph, code: 2, category: .transient, status: 503),
        Case(
            name: "unknown provider error", fault: .error("graph/1", path: "/debug_token"), domain: .graph, code: 1,
            category: .transient, status: 503),
        Case(
            name: "app rate limit at debug_token", fault: .error("graph/4", path: "/debug_token"), domain: .graph,
            code: 4,
            category: .transient, status: 503),
        Case(
            name: "bad code", fault: .error("graph/100", path: "/oauth/access_token"), domain: .graph, code: 100,
            category: .other, status: 400),
        Case(
            name: "token dead at the profile", fault: .error("graph/190/460", path: "/me"), domain: .graph, code: 190,
            category: .recoverable, status: 401),
        Case(
            name: "HTTP 503 without a body", fault: .error("http/503", path: "/debug_token"), domain: .http, code: 503,
            category: .transient, status: 502),
        Case(
            name: "HTML error page", fault: FaultRule(kind: .html, path: "/oauth/access_token"), domain: .http,
            code: 502,
            category: .transient, status: 502),
        Case(
            name: "dropped connection", fault: FaultRule(kind: .drop, path: "/me"), domain: .transport, code: nil,
            category: .transient, status: 502),
        Case(
            name: "malformed JSON", fault: FaultRule(kind: .malformedJSON, path: "/oauth/access_token"),
            domain: .transport, code: 7, category: .transient, status: 502),
    ]

    @Test(arguments: cases)
    func classifiesTheFailure(_ example: Case) async throws {
        try await TestStack.run { stack in
            try await stack.emulator.inject(example.fault)
            let error = try #require(await stack.client.failure { try await stack.login() })
            #expect(error.domain == example.domain)
            if let code = example.code { #expect(error.code.rawValue == code) }
            #expect(error.category == example.category)
            #expect(error.httpStatus == example.status)
            #expect(error.httpStatus != 500)
            #expect(error.referenceID == error.header("X-Request-Id"))
            #expect(error.developerMessage.contains("The provider failed"))
        }
    }

    @Test func aTimeoutIsTransient() async throws {
        try await TestStack.run(configure: { $0.providers.timeout = .milliseconds(500) }) { stack in
            try await stack.emulator.inject(FaultRule(kind: .delay, path: "/debug_token", delayMilliseconds: 3000))
            let error = try #require(await stack.client.failure { try await stack.login() })
            #expect(error.code == .Transport.timedOut)
            #expect(error.category == .transient)
            #expect(error.httpStatus == 504)
        }
    }

    @Test func theSameCodeWorksOnceTheProviderIsBack() async throws {
        try await TestStack.run { stack in
            try await stack.emulator.inject(error: "graph/2", path: "/oauth/access_token", times: 1)
            let body = try await stack.emulator.loginCodeBody()
            let error = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(error?.code == .Graph.serviceUnavailable)
            #expect(error?.category == .transient)
            let session = try await stack.client.post("/v1/login/code", json: body).json()
            #expect(session["access_token"]?.stringValue != nil)
        }
    }

    @Test(
        "A code whose exchange had no answer stays claimed (the provider may have used it): the same code is refused, not sent again",
        arguments: [FaultRule.Kind.delay, .drop, .connectionLost])
    func anAmbiguousExchangeFailureKeepsTheCodeClaimed(_ kind: FaultRule.Kind) async throws {
        try await TestStack.run(configure: { $0.providers.timeout = .milliseconds(400) }) { stack in
            try await stack.emulator.inject(
                FaultRule(kind: kind, path: "/oauth/access_token", delayMilliseconds: 2000, times: 1))
            let body = try await stack.emulator.loginCodeBody()
            let first = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(first?.domain == .transport, "\(String(describing: first))")
            let again = await stack.client.failure { try await stack.client.post("/v1/login/code", json: body) }
            #expect(again?.code == .Graph.invalidParameter)
            #expect(again?.subcode?.rawValue == 36009)
            // One exchange at most: on a loaded machine the 400 ms bound can pass before the first reaches the
            // emulator (the code stays claimed all the same: a timeout is ambiguous).
            let exchanges = await stack.emulator.requestLog().filter { $0.path.hasSuffix("/oauth/access_token") }
            #expect(exchanges.count <= 1, "the code went to the provider again")
        }
    }

    @Test(
        "Only a failure that certainly left the code unused releases it",
        arguments: [
            (MendError.Code.Transport.cannotConnect, true), (.Transport.cannotFindHost, true),
            (.Transport.notConnected, true), (.Graph.serviceUnavailable, true),
            (.Transport.timedOut, false), (.Transport.connectionLost, false), (.Transport.malformedResponse, false),
            (.HTTP.badGateway, false), (.HTTP.gatewayTimeout, false), (.Graph.invalidParameter, false),
        ])
    func releaseRule(_ code: MendError.Code, _ released: Bool) {
        let error = MendError(code: code, developerMessage: "", catalog: .server)
        #expect(ProviderLogins.exchangeCertainlyUnused(error) == released, "\(code)")
    }

    @Test func aRealBadCodeIsTheProvidersOther() async throws {
        try await TestStack.run { stack in
            let error = await stack.client.failure {
                try await stack.client.post(
                    "/v1/login/code",
                    json: .object([
                        "code": .string("AQ-not-a-code-the-provider-issued"),
                        "code_verifier": .string(PKCE().verifier),
                        "redirect_uri": .string("https://app.example/callback"),
                    ]))
            }
            #expect(error?.code == .Graph.invalidParameter)
            #expect(error?.category == .other)
        }
    }
}
