import Foundation
import MendCore
import MendTesting
import Testing

@testable import MendServer

/// A client nobody here wrote: PyPI's pydpop makes the proofs a Python client presents to mend-server — a login that
/// answers one nonce challenge, the session check, a replayed proof, a proof for another URL or method, a bearer use
/// of the bound token, a refresh — over the wire, with urllib.
@Suite(
    "pydpop's proofs at mend-server",
    .enabled(
        if: ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"] != nil,
        "MEND_TEST_PYTHON names no Python with pydpop (scripts/test sets it)"))
struct PythonDPoPClientTests {
    static let script = #"""
        import json, sys, urllib.request, urllib.error, pydpop
        base, login_body = sys.argv[1], json.loads(sys.argv[2])
        key = pydpop.generate_key("ES256")
        out = {"jkt": pydpop.jwk_thumbprint(pydpop.public_jwk(key))}

        def call(method, path, body=None, token=None, proof=None, scheme="DPoP"):
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(base + path, method=method, data=data)
            request.add_header("Content-Type", "application/json")
            if token:
                request.add_header("Authorization", scheme + " " + token)
            if proof:
                request.add_header("DPoP", proof)
            try:
                with urllib.request.urlopen(request) as response:
                    return response.status, json.loads(response.read() or b"null"), response.headers
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read() or b"null"), error.headers

        def proof(method, path, token=None, nonce=None):
            return pydpop.generate_proof(private_key=key, htm=method, htu=base + path, access_token=token, nonce=nonce)

        status, body, headers = call("POST", "/v1/login/code", login_body, proof=proof("POST", "/v1/login/code"))
        out["login_challenge"] = [status, headers.get("WWW-Authenticate", "")]
        nonce = headers.get("DPoP-Nonce")
        status, body, headers = call("POST", "/v1/login/code", login_body,
                                     proof=proof("POST", "/v1/login/code", nonce=nonce))
        out["login"] = [status, body.get("token_type")]
        access, refresh = body["access_token"], body["refresh_token"]
        out["access_token"] = access
        check = proof("GET", "/v1/session", token=access, nonce=nonce)
        out["check"] = call("GET", "/v1/session", token=access, proof=check)[0]
        out["replayed"] = call("GET", "/v1/session", token=access, proof=check)[0]
        out["other_url"] = call("GET", "/v1/session", token=access,
                                proof=proof("GET", "/v1/me", token=access, nonce=nonce))[0]
        out["other_method"] = call("GET", "/v1/session", token=access,
                                   proof=proof("POST", "/v1/session", token=access, nonce=nonce))[0]
        out["bearer"] = call("GET", "/v1/session", token=access, scheme="Bearer")[0]
        status, body, headers = call("POST", "/v1/session/refresh", {"refresh_token": refresh},
                                     proof=proof("POST", "/v1/session/refresh", nonce=nonce))
        out["refresh"] = [status, body.get("token_type")]
        fresh = body["access_token"]
        out["refreshed_check"] = call("GET", "/v1/session", token=fresh,
                                      proof=proof("GET", "/v1/session", token=fresh, nonce=nonce))[0]
        print(json.dumps(out))
        """#

    @Test("A Python client with pydpop logs in (one nonce challenge), is checked, refreshes; wrong proofs are refused")
    func pythonClient() async throws {
        try await TestStack.run(configure: { $0.sessions.dpopRequiresNonce = true }) { stack in
            let body = try await stack.emulator.loginCodeBody()
            let process = Process()
            process.executableURL = URL(
                fileURLWithPath: try #require(ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"]))
            process.arguments = ["-c", Self.script, stack.server.baseURL.absoluteString, body.jsonText()]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = await BlockingWork.run { output.fileHandleForReading.readDataToEndOfFile() }
            await process.exited()
            #expect(process.terminationStatus == 0)
            let result = try JSONValue.parse(data).get()
            #expect(result["login_challenge"]?.arrayValue?.first == .int(401))
            #expect(
                result["login_challenge"]?.arrayValue?.last?.stringValue?.hasPrefix(#"DPoP error="use_dpop_nonce""#)
                    == true)
            #expect(result["login"] == .array([.int(200), .string("DPoP")]), "one retry with the nonce")
            let access = try #require(result["access_token"]?.stringValue)
            #expect(confirmationKey(of: access) == result["jkt"]?.stringValue, "bound to pydpop's key")
            #expect(result["check"] == .int(200))
            for refused in ["replayed", "other_url", "other_method", "bearer"] {
                #expect(result[refused] == .int(401), "\(refused)")
            }
            #expect(result["refresh"] == .array([.int(200), .string("DPoP")]))
            #expect(result["refreshed_check"] == .int(200))
        }
    }
}
