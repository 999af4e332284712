import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendJOSE
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// A client of mend-server that makes its own DPoP proofs (MendLogin's proof, a test key), so that each check of the
/// server can be tried with a proof that is wrong in one way.
struct ProvingClient: Sendable {
    let server: ServerClient
    let signer: any JWSSigningBackend
    let key: DPoPKey
    /// The base of the URLs proofs name: the server's public URL.
    var publicURL: URL

    init(_ baseURL: URL) throws {
        server = ServerClient(baseURL)
        key = try DPoPSoftwareKeys().makeKey()
        signer = try DPoPKeyring.signer(for: key)
        publicURL = baseURL
    }

    init(server: ServerClient, key: DPoPKey, signer: any JWSSigningBackend, publicURL: URL) {
        self.server = server
        self.key = key
        self.signer = signer
        self.publicURL = publicURL
    }

    /// A proof of `method` to `path` (on this server) presenting `accessToken`, made at `time`.
    func proof(
        _ method: String, _ path: String, accessToken: String? = nil, nonce: String? = nil, time: Date = Date(),
        signer: (any JWSSigningBackend)? = nil
    ) throws -> String {
        try DPoPProof(
            signer: signer ?? self.signer, method: method, url: URL(string: publicURL.absoluteString + path)!,
            accessToken: accessToken,
            nonce: nonce, issuedAt: time
        ).jwt
    }

    /// `POST path` with `json` and the `DPoP` header `proof` (none when `nil`).
    func post(_ path: String, json: JSONValue, proof: String?, authorization: String? = nil) async throws -> JSONValue {
        var headers = HTTPFields()
        if let proof { headers[.dpop] = proof }
        if let authorization { headers[.authorization] = authorization }
        return try await server.post(path, json: json, headers: headers).json()
    }

    /// `GET path` with `Authorization: <scheme> <token>` and the `DPoP` header `proof`.
    func get(_ path: String, token: String, scheme: String = "DPoP", proof: String?) async throws -> JSONValue {
        var headers: HTTPFields = [.authorization: "\(scheme) \(token)"]
        if let proof { headers[.dpop] = proof }
        return try await server.get(path, headers: headers).json()
    }

    /// A login through the emulator's dialog, proved with this client's key.
    func login(_ emulator: RunningEmulator) async throws -> JSONValue {
        try await post(
            "/v1/login/code", json: try await emulator.loginCodeBody(), proof: try proof("POST", "/v1/login/code"))
    }
}

/// The `cnf.jkt` of an access token (its payload read, not verified).
func confirmationKey(of token: String) -> String? {
    let parts = token.split(separator: ".")
    guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
        case .object(let claims)? = try? JSONValue.parse(payload).get()
    else { return nil }
    return claims["cnf"]?["jkt"]?.stringValue
}

extension MendError {
    /// A DPoP refusal: 401, its session code, `WWW-Authenticate: DPoP error="<error>"`.
    func isDPoPRefusal(_ error: String = "invalid_dpop_proof") -> Bool {
        let code: MendError.Code = error == "use_dpop_nonce" ? .Session.dpopNonceRequired : .Session.dpopProofInvalid
        return self.code == code && httpStatus == 401
            && (header("WWW-Authenticate")?.hasPrefix(#"DPoP error="\#(error)""#) ?? false)
    }
}

/// mend-server's DPoP-bound sessions (RFC 9449): what is bound, and every way a use of a bound token is refused.
@Suite("DPoP-bound sessions at mend-server")
struct DPoPSessionTests {
    @Test(
        "A login with a proof is bound to its key; the token is refused without a proof, with another key, URL or method, and with a proof used before; the refresh token too",
        arguments: TestDatabase.available)
    func boundSession(database: TestDatabase) async throws {
        try await TestStack.run(database: database) { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let session = try await client.login(stack.emulator)
            #expect(session["token_type"]?.stringValue == "DPoP")
            let access = try #require(session["access_token"]?.stringValue)
            #expect(confirmationKey(of: access) == client.key.thumbprint)

            let good = try client.proof("GET", "/v1/me", accessToken: access)
            #expect(try await client.get("/v1/me", token: access, proof: good)["id"] == session["user"]?["id"])

            let other = try ProvingClient(stack.server.baseURL)
            let refusals: [(String, () async throws -> JSONValue)] = [
                ("as a bearer token", { try await client.get("/v1/me", token: access, scheme: "Bearer", proof: nil) }),
                ("without a proof", { try await client.get("/v1/me", token: access, proof: nil) }),
                (
                    "with another key's proof",
                    {
                        try await client.get(
                            "/v1/me", token: access, proof: try other.proof("GET", "/v1/me", accessToken: access))
                    }
                ),
                (
                    "with a proof for another URL",
                    {
                        try await client.get(
                            "/v1/me", token: access, proof: try client.proof("GET", "/v1/session", accessToken: access))
                    }
                ),
                (
                    "with a proof for another method",
                    {
                        try await client.get(
                            "/v1/me", token: access, proof: try client.proof("POST", "/v1/me", accessToken: access))
                    }
                ),
                (
                    "with a proof for another token",
                    {
                        try await client.get(
                            "/v1/me", token: access, proof: try client.proof("GET", "/v1/me", accessToken: "other"))
                    }
                ),
                ("with a proof used before", { try await client.get("/v1/me", token: access, proof: good) }),
            ]
            for (what, call) in refusals {
                let refused = await stack.client.failure(call)
                #expect(refused?.isDPoPRefusal() == true, "\(what): \(String(describing: refused))")
            }

            // The refresh token is bound to the same key: refused without its proof, or with another key's.
            let refresh: JSONValue = .object(["refresh_token": session["refresh_token"]!])
            for proof in [nil, try other.proof("POST", "/v1/session/refresh")] {
                let refused = await stack.client.failure {
                    try await client.post("/v1/session/refresh", json: refresh, proof: proof)
                }
                #expect(refused?.isDPoPRefusal() == true, "\(String(describing: refused))")
            }
            let refreshed = try await client.post(
                "/v1/session/refresh", json: refresh, proof: try client.proof("POST", "/v1/session/refresh"))
            #expect(refreshed["token_type"]?.stringValue == "DPoP")
            let next = try #require(refreshed["access_token"]?.stringValue)
            #expect(confirmationKey(of: next) == client.key.thumbprint)
            #expect(
                try await client.get(
                    "/v1/session", token: next, proof: try client.proof("GET", "/v1/session", accessToken: next)
                )["valid"] == .bool(true))

            // A logout with the refresh token alone must prove the key too.
            let logout: JSONValue = .object(["refresh_token": refreshed["refresh_token"]!])
            let refusedLogout = await stack.client.failure {
                try await client.server.post("/v1/session/logout", json: logout, expectsJSON: false)
            }
            #expect(refusedLogout?.isDPoPRefusal() == true, "\(String(describing: refusedLogout))")
            var headers = HTTPFields()
            headers[.dpop] = try client.proof("POST", "/v1/session/logout")
            _ = try await client.server.post("/v1/session/logout", json: logout, headers: headers, expectsJSON: false)
            let ended = await stack.client.failure {
                try await client.get(
                    "/v1/session", token: next, proof: try client.proof("GET", "/v1/session", accessToken: next))
            }
            #expect(ended?.code == .Session.loggedOut)
        }
    }

    @Test("A login without a proof is a bearer session (allowed); refused when required; never bound when off")
    func modes() async throws {
        try await TestStack.run { stack in
            let bearer = try await stack.login()
            #expect(bearer["token_type"]?.stringValue == "Bearer")
            let access = try #require(bearer["access_token"]?.stringValue)
            #expect(confirmationKey(of: access) == nil)
            _ = try await stack.client.get("/v1/me", bearer: access)
            // A bearer token presented as a DPoP one is not valid.
            let client = try ProvingClient(stack.server.baseURL)
            let misnamed = await stack.client.failure {
                try await client.get(
                    "/v1/me", token: access, proof: try client.proof("GET", "/v1/me", accessToken: access))
            }
            #expect(misnamed?.code == .Session.accessTokenInvalid)
        }
        try await TestStack.run(configure: { $0.sessions.dpop = .required }) { stack in
            let refused = await stack.client.failure { try await stack.login() }
            #expect(refused?.isDPoPRefusal() == true, "\(String(describing: refused))")
            let client = try ProvingClient(stack.server.baseURL)
            #expect(try await client.login(stack.emulator)["token_type"]?.stringValue == "DPoP")
        }
        try await TestStack.run(configure: { $0.sessions.dpop = .off }) { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let session = try await client.login(stack.emulator)
            #expect(session["token_type"]?.stringValue == "Bearer")
            #expect(confirmationKey(of: try #require(session["access_token"]?.stringValue)) == nil)
        }
    }

    @Test("Nonces: required ones are asked for once with the nonce to use; a proof whose clock is off is asked for one")
    func nonces() async throws {
        try await TestStack.run(configure: { $0.sessions.dpopRequiresNonce = true }) { stack in
            let client = try ProvingClient(stack.server.baseURL)
            let body = try await stack.emulator.loginCodeBody()
            let challenge = await stack.client.failure {
                try await client.post("/v1/login/code", json: body, proof: try client.proof("POST", "/v1/login/code"))
            }
            #expect(challenge?.isDPoPRefusal("use_dpop_nonce") == true, "\(String(describing: challenge))")
            let nonce = try #require(challenge?.header("DPoP-Nonce"))
            var headers = HTTPFields()
            headers[.dpop] = try client.proof("POST", "/v1/login/code", nonce: nonce)
            let answer = try await client.server.post("/v1/login/code", json: body, headers: headers)
            #expect(try answer.json()["token_type"]?.stringValue == "DPoP")
            // Every answer to a proved request carries the nonce to use next: no challenge while it lasts.
            #expect(answer.head.headerFields[.dpopNonce] != nil)
        }
        try await TestStack.run { stack in
            // Nonces not required: a proof an hour old is asked for a nonce, and passes with it whatever its iat.
            let client = try ProvingClient(stack.server.baseURL)
            let body = try await stack.emulator.loginCodeBody()
            let late = Date().addingTimeInterval(-3600)
            let challenge = await stack.client.failure {
                try await client.post(
                    "/v1/login/code", json: body, proof: try client.proof("POST", "/v1/login/code", time: late))
            }
            #expect(challenge?.isDPoPRefusal("use_dpop_nonce") == true, "\(String(describing: challenge))")
            let nonce = try #require(challenge?.header("DPoP-Nonce"))
            let session = try await client.post(
                "/v1/login/code", json: body,
                proof: try client.proof("POST", "/v1/login/code", nonce: nonce, time: late))
            #expect(session["token_type"]?.stringValue == "DPoP")
        }
    }
}
