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

/// The wire contract as a client reads it: a plain MendHTTP `APIClient` with `MendServiceErrorDecoder` logs in,
/// decodes the session response into its own types, and gets classified errors.
@Suite struct WireContractTests {
    struct Session: Decodable {
        struct User: Decodable {
            var id: String
            var providerUserId: String
            var name: String
            var email: String?
            var picture: String?
        }
        var sessionId: String
        var accessToken: String
        var tokenType: String
        var expiresIn: Int
        var refreshToken: String
        var refreshExpiresIn: Int
        var user: User
        var grantedScopes: [String]
        var declinedScopes: [String]
        var providerToken: String?
    }

    @Test func aPlainAPIClientLogsInRefreshesAndReadsErrors() async throws {
        try await TestStack.run { stack in
            let client = APIClient(
                transport: stack.client.client.transport,
                configuration: APIClient.Configuration(errorDecoder: MendServiceErrorDecoder()))
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let body = try await stack.emulator.loginCodeBody()
            let request = APIRequest(
                method: .post, url: stack.server.url("/v1/login/code"), headers: [.contentType: "application/json"],
                body: Data(body.jsonText().utf8))
            let session = try await client.send(request).decode(Session.self, decoder: decoder)
            #expect(session.tokenType == "Bearer")
            #expect(session.expiresIn == 900)
            #expect(session.user.providerUserId == "100000000000001")
            #expect(session.providerToken == nil)
            #expect(session.sessionId.hasPrefix("ses_"))

            let refresh = APIRequest(
                method: .post, url: stack.server.url("/v1/session/refresh"),
                headers: [.contentType: "application/json"],
                body: Data(#"{"refresh_token":"\#(session.refreshToken)"}"#.utf8))
            let rotated = try await client.send(refresh).decode(Session.self, decoder: decoder)
            #expect(rotated.refreshToken != session.refreshToken)
            #expect(rotated.sessionId == session.sessionId)

            // The same refresh again (its answer was lost): the same successor, never a conflict.
            let again = try await client.send(refresh).decode(Session.self, decoder: decoder)
            #expect(again.refreshToken == rotated.refreshToken)
            #expect(again.accessToken != rotated.accessToken)

            // Session errors: 401, the session domain, and whether the session is over.
            let expired = APIRequest(
                method: .get, url: stack.server.url("/v1/session"),
                headers: [.authorization: "Bearer \(session.accessToken)"])
            stack.clock.advance(by: 901)
            do {
                _ = try await client.send(expired)
                Issue.record("an expired access token was accepted")
            } catch let error as MendError {
                #expect(error.code == .Session.accessTokenExpired)
                #expect(error.domain == .session)
                #expect(error.name == "accessTokenExpired")
                #expect(error.httpStatus == 401)
                #expect(!MendError.Code.Session.endsSession(error.code))
                #expect(error.referenceID?.count == 24)
            }
            let unknown = APIRequest(
                method: .post, url: stack.server.url("/v1/session/refresh"),
                headers: [.contentType: "application/json"], body: Data(#"{"refresh_token":"mrt_unknown"}"#.utf8))
            do {
                _ = try await client.send(unknown)
                Issue.record("an unknown refresh token was accepted")
            } catch let error as MendError {
                #expect(error.code == .Session.refreshTokenUnknown)
                #expect(error.name == "refreshTokenUnknown")
                #expect(error.category == .recoverable)
                #expect(MendError.Code.Session.endsSession(error.code))
                #expect(error.referenceID?.count == 24)
                #expect(error.userMessage.isEmpty == false)
            }

            try await stack.emulator.inject(error: "graph/2", path: "/oauth/access_token")
            let outage = APIRequest(
                method: .post, url: stack.server.url("/v1/login/code"), headers: [.contentType: "application/json"],
                body: Data(try await stack.emulator.loginCodeBody().jsonText().utf8))
            do {
                _ = try await client.send(outage)
                Issue.record("the outage was not reported")
            } catch let error as MendError {
                #expect(error.matches(.Graph.serviceUnavailable))
                #expect(error.category == .transient)
                #expect(error.attempts == 1)  // a POST is not retried by the client either
            }
        }
    }
}
