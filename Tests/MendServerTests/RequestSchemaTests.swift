import Foundation
import HTTPTypes
import MendCore
import Testing

@testable import MendServer

/// The request schemas: what the routes validate is what /openapi.json documents.
struct RequestSchemaTests {
    @Test func theRedirectPatternAllowsExactlyWhatThePolicyAllows() {
        let allowed = [
            "https://app.example/callback", "http://127.0.0.1/callback", "http://[::1]:8080/cb?x=1", "http://localhost",
            "com.example.app:/oauth2redirect",
        ]
        let pattern = RedirectURIPolicy.pattern(allowed: allowed)
        let candidates = [
            "https://app.example/callback", "https://app.example/callback/", "https://app.example.evil/callback",
            "https://app.examplexcallback", "http://127.0.0.1/callback", "http://127.0.0.1:51234/callback",
            "http://127.0.0.1:51234/callbackx", "http://127.0.0.2/callback", "http://[::1]/cb?x=1",
            "http://[::1]:9/cb?x=1", "http://[::1]:9/cb?x=2", "http://localhost", "http://localhost/",
            "http://localhost:8080/", "http://localhost:8080/a", "com.example.app:/oauth2redirect",
            "com.example.app:/oauth2redirectx", "", "https://app.example/callback#x",
        ]
        for candidate in candidates {
            #expect(
                RequestSchema.matches(candidate, pattern: pattern)
                    == RedirectURIPolicy.allows(candidate, allowed: allowed), "\(candidate)")
        }
        #expect(!RequestSchema.matches("anything", pattern: RedirectURIPolicy.pattern(allowed: [])))
    }

    @Test func fieldsAreCheckedByTypeLengthPatternAndPresence() throws {
        let refresh = RequestSchema.refresh
        #expect(try refresh.validate(["refresh_token": .string("mrt_abc-_9")])["refresh_token"] == "mrt_abc-_9")
        let refused: [[String: JSONValue]] = [
            [:], ["refresh_token": .null], ["refresh_token": .string("")], ["refresh_token": .int(1)],
            ["refresh_token": .string("a b")], ["refresh_token": .string(String(repeating: "a", count: 513))],
        ]
        for body in refused {
            #expect(throws: ServerFailure.self, "\(body)") { try refresh.validate(body) }
        }
        let logout = RequestSchema.logout
        #expect(try logout.validate([:]).strings.isEmpty)
        #expect(
            try logout.validate(["revoke_provider_permissions": .bool(true)]).booleans["revoke_provider_permissions"]
                == true)
        #expect(throws: ServerFailure.self) { try logout.validate(["revoke_provider_permissions": .null]) }
        #expect(throws: ServerFailure.self) { try logout.validate(["revoke_provider_permissions": .string("true")]) }
        let revocation = RequestSchema.revocation
        #expect(
            try revocation.validate(["token": .string(String(repeating: "z", count: 9000))])["token"]?.count == 9000)
        #expect(throws: ServerFailure.self) {
            try revocation.validate(["token": .string("t"), "token_type_hint": .string("id_token")])
        }
    }

    @Test func theDocumentDescribesTheSchemasAndEveryErrorStatusWithoutADefault() {
        var configuration = ServerConfiguration(appID: "1", appSecret: Secret("s"))
        configuration.sessions.allowedRedirectURIs = ["https://app.example/callback"]
        configuration.admin.tokens = [AdminToken.generate(id: "ops").configuration]
        configuration.passkeys.relyingPartyID = "example.com"
        let document = OpenAPIDocument.make(configuration: configuration)
        let login = document["components"]?["schemas"]?["LoginRequest"]
        #expect(login?["properties"]?["code_verifier"]?["minLength"] == .int(43))
        #expect(login?["required"] == .array([.string("code"), .string("code_verifier"), .string("redirect_uri")]))
        #expect(login == RequestSchema.login(configuration).openAPISchema)
        for endpoint in RouteTable.all {
            let responses = document["paths"]?[endpoint.openAPIPath]?[endpoint.method.rawValue.lowercased()]?[
                "responses"]?.objectValue
            #expect(responses?["default"] == nil, "\(endpoint.path)")
            #expect(
                Set(responses?.keys.map { $0 } ?? [])
                    == Set([String(endpoint.successStatus)] + endpoint.errorStatuses.map(String.init)),
                "\(endpoint.path)")
        }
    }

    @Test("The document describes DPoP as the configuration has it: the scheme, the proof header, the nonce headers")
    func theDocumentDescribesDPoP() {
        var configuration = ServerConfiguration(appID: "1", appSecret: Secret("s"))
        configuration.sessions.allowedRedirectURIs = ["https://app.example/callback"]
        configuration.sessions.dpopRequiresNonce = true
        let document = OpenAPIDocument.make(configuration: configuration)
        #expect(document["components"]?["securitySchemes"]?["DPoP"]?["scheme"] == .string("DPoP"))
        #expect(
            document["components"]?["schemas"]?["Session"]?["properties"]?["token_type"]?["enum"]
                == .array([.string("Bearer"), .string("DPoP")]))
        #expect(document["info"]?["description"]?.stringValue?.contains(#"error="use_dpop_nonce""#) == true)
        for endpoint in RouteTable.served(configuration) {
            let operation = document["paths"]?[endpoint.openAPIPath]?[endpoint.method.rawValue.lowercased()]
            let proofHeader = operation?["parameters"]?.arrayValue?.first { $0["name"] == .string("DPoP") }
            #expect((proofHeader?["in"] == .string("header")) == endpoint.takesProof, "\(endpoint.path)")
            let schemes = operation?["security"]?.arrayValue?.compactMap { $0.objectValue?.keys.first } ?? []
            #expect(
                schemes.contains("DPoP") == (endpoint.authenticated && !endpoint.admin),
                "\(endpoint.path): \(schemes)")
            let success = operation?["responses"]?[String(endpoint.successStatus)]
            #expect((success?["headers"]?["DPoP-Nonce"] != nil) == endpoint.takesProof, "\(endpoint.path)")
            if endpoint.errorStatuses.contains(401) {
                #expect(
                    (operation?["responses"]?["401"]?["$ref"]
                        == .string("#/components/responses/Unauthorized")) == endpoint.takesProof,
                    "\(endpoint.path)")
            }
        }
        let headers = document["components"]?["responses"]?["Unauthorized"]?["headers"]?.objectValue
        #expect(Set(headers?.keys.map { $0 } ?? []) == ["WWW-Authenticate", "DPoP-Nonce"])

        // Off: no proof header, no DPoP scheme on the operations, no nonce on the answers.
        configuration.sessions.dpop = .off
        let off = OpenAPIDocument.make(configuration: configuration)
        let offParameters = (off["paths"]?.objectValue?.values.map { $0 } ?? []).flatMap { operations in
            (operations.objectValue?.values.map { $0 } ?? []).flatMap { $0["parameters"]?.arrayValue ?? [] }
        }
        #expect(!offParameters.isEmpty && !offParameters.contains { $0["name"] == .string("DPoP") })
        #expect(off["paths"]?["/v1/session"]?["get"]?["security"] == .array([.object(["bearer": .array([])])]))
    }
}
