import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
@_spi(MendFuzzing) import MendSignedRequest
import MendTesting
import Testing

@testable import MendServer

/// The provider's deauthorize and data-deletion callbacks (signed_request), on SQLite and PostgreSQL.
@Suite struct CallbackTests {
    static let secret = "0123456789abcdef0123456789abcdef"

    static func signedRequest(
        userID: String = "100000000000001", issuedAt: Date = Date(), algorithm: String = "HMAC-SHA256",
        secret: String = secret
    ) -> String {
        SignedRequest.make(
            payload: .object([
                "algorithm": .string(algorithm), "issued_at": .int(Int(issuedAt.timeIntervalSince1970)),
                "user_id": .string(userID),
            ]), secret: secret)
    }

    static func form(_ signedRequest: String) -> String {
        "signed_request=" + signedRequest.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    @Test(arguments: TestDatabase.available)
    func deauthorizeEndsTheUsersSessions(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let first = try await stack.login()
            let second = try await stack.login()
            let bob = try await stack.login(userID: "100000000000002")
            let answer = try await stack.client.postForm(
                "/v1/provider/deauthorize", form: Self.form(Self.signedRequest(issuedAt: stack.clock.now))
            ).json()
            #expect(answer["success"] == .bool(true))
            #expect(answer["sessions_ended"]?.intValue == 2)
            for session in [first, second] {
                let error = await stack.client.failure {
                    try await stack.client.get("/v1/session", bearer: session["access_token"]!.stringValue!)
                }
                #expect(error?.isSession(.Session.providerAccessRevoked) == true)
                #expect(error?.developerMessage.contains("removed the app") == true)
                let refresh = await stack.client.failure { try await stack.client.refresh(session["refresh_token"]) }
                #expect(refresh?.isSession(.Session.providerAccessRevoked) == true)
            }
            _ = try await stack.client.get("/v1/session", bearer: bob["access_token"]!.stringValue!)
            // An unknown user is fine (nothing to do).
            let unknown = try await stack.client.postForm(
                "/v1/provider/deauthorize", form: Self.form(Self.signedRequest(userID: "42", issuedAt: stack.clock.now))
            ).json()
            #expect(unknown["sessions_ended"]?.intValue == 0)
        }
    }

    @Test(
        "A signed_request is accepted once: a replay within its window is refused and ends no new session",
        arguments: TestDatabase.available)
    func refusesAReplayedSignedRequest(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            _ = try await stack.login()
            let deauthorize = Self.form(Self.signedRequest(issuedAt: stack.clock.now))
            let answer = try await stack.client.postForm("/v1/provider/deauthorize", form: deauthorize).json()
            #expect(answer["sessions_ended"]?.intValue == 1)
            // The user adds the app again; a captured callback replayed now must not end the new session.
            let again = try await stack.login()
            let replay = await stack.client.failure {
                try await stack.client.postForm("/v1/provider/deauthorize", form: deauthorize)
            }
            #expect(replay?.code == .REST.accessDenied)
            #expect(replay?.httpStatus == 401)
            #expect(replay?.developerMessage.contains("already") == true)
            _ = try await stack.client.get("/v1/session", bearer: again["access_token"]!.stringValue!)

            // The same for data deletion: a replay deletes nothing more.
            let deletion = Self.form(Self.signedRequest(userID: "100000000000002", issuedAt: stack.clock.now))
            _ = try await stack.client.postForm("/v1/provider/data-deletion", form: deletion).json()
            let bob = try await stack.login(userID: "100000000000002")
            let replayed = await stack.client.failure {
                try await stack.client.postForm("/v1/provider/data-deletion", form: deletion)
            }
            #expect(replayed?.httpStatus == 401)
            _ = try await stack.client.get("/v1/session", bearer: bob["access_token"]!.stringValue!)
        }
    }

    @Test(
        "A callback is remembered only once handled: one that failed half-way is accepted when the provider sends it again"
    )
    func aCallbackIsRememberedOnlyOnceHandled() async throws {
        try await TestStack.run { stack in
            let backend = stack.server.backend
            let signed = Self.signedRequest(issuedAt: stack.clock.now)
            // Verified, then failed before it was handled (nothing remembered): the provider's retry is accepted.
            let first = try await backend.callbacks.acceptedCallback(signed)
            let retry = try await backend.callbacks.acceptedCallback(signed)
            #expect(first.digest == retry.digest)
            try await backend.callbacks.remember(retry)
            await #expect(throws: ServerFailure.self) { try await backend.callbacks.acceptedCallback(signed) }
        }
    }

    @Test func refusesTamperedExpiredAndForeignRequests() async throws {
        try await TestStack.run { stack in
            let session = try await stack.login()
            let valid = Self.signedRequest(issuedAt: stack.clock.now)
            let parts = valid.split(separator: ".")
            let forgedPayload = Base64URL.encode(
                Data(
                    #"{"algorithm":"HMAC-SHA256","issued_at":\#(Int(stack.clock.now.timeIntervalSince1970)),"user_id":"100000000000002"}"#
                        .utf8))
            let cases: [(String, Int)] = [
                ("\(parts[0]).\(forgedPayload)", 401),  // tampered payload
                (Self.signedRequest(issuedAt: stack.clock.now, secret: "not the app secret at all, no....."), 401),
                (Self.signedRequest(issuedAt: stack.clock.now.addingTimeInterval(-7200)), 401),  // expired
                (Self.signedRequest(issuedAt: stack.clock.now, algorithm: "none"), 401),
                ("not-a-signed-request", 400),
            ]
            for (signed, status) in cases {
                for path in ["/v1/provider/deauthorize", "/v1/provider/data-deletion"] {
                    let error = await stack.client.failure {
                        try await stack.client.postForm(path, form: Self.form(signed))
                    }
                    #expect(error?.httpStatus == status)
                    #expect(error?.domain == .rest)
                }
            }
            let missing = await stack.client.failure {
                try await stack.client.postForm("/v1/provider/deauthorize", form: "")
            }
            #expect(missing?.httpStatus == 400)
            // Nothing was revoked.
            _ = try await stack.client.get("/v1/session", bearer: session["access_token"]!.stringValue!)
        }
    }

    @Test(arguments: TestDatabase.available)
    func dataDeletionDeletesAndReportsStatus(_ database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let session = try await stack.login()
            let answer = try await stack.client.postForm(
                "/v1/provider/data-deletion", form: Self.form(Self.signedRequest(issuedAt: stack.clock.now))
            ).json()
            let code = try #require(answer["confirmation_code"]?.stringValue)
            let url = try #require(answer["url"]?.stringValue)
            #expect(url == stack.server.baseURL.absoluteString + "/v1/provider/deletion/\(code)")
            let status = try await stack.client.get("/v1/provider/deletion/\(code)").json()
            #expect(status["status"]?.stringValue == "completed")
            #expect(status["confirmation_code"]?.stringValue == code)
            // The user and their sessions are gone.
            let error = await stack.client.failure {
                try await stack.client.get("/v1/session", bearer: session["access_token"]!.stringValue!)
            }
            #expect(error?.isSession(.Session.userDeleted) == true)
            let me = await stack.client.failure {
                try await stack.client.get("/v1/me", bearer: session["access_token"]!.stringValue!)
            }
            #expect(me?.isSession(.Session.userDeleted) == true)
            let unknown = await stack.client.failure { try await stack.client.get("/v1/provider/deletion/NOPE") }
            #expect(unknown?.code == .REST.notFound)
            // A JSON body works too, and the public URL is used when configured.
        }
    }

    @Test func usesThePublicURLAndAcceptsJSON() async throws {
        try await TestStack.run(configure: { $0.listening.publicURL = URL(string: "https://auth.example/")! }) {
            stack in
            let answer = try await stack.client.post(
                "/v1/provider/data-deletion",
                json: .object(["signed_request": .string(Self.signedRequest(userID: "7", issuedAt: stack.clock.now))])
            ).json()
            #expect(answer["url"]?.stringValue?.hasPrefix("https://auth.example/v1/provider/deletion/") == true)
        }
    }
}
