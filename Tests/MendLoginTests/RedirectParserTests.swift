import Foundation
import MendCore
import MendFacebook
import MendLogin
import Testing

let transaction = AuthorizationTransaction(
    state: "s7ate-0123456789abcdefghij", nonce: "n0nce", codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    redirectURI: URL(string: "http://127.0.0.1:53682/callback")!, scopes: ["public_profile", "email"],
    isRerequest: false, createdAt: Date(timeIntervalSince1970: 0))
let state = transaction.state
let base = "http://127.0.0.1:53682/callback"

@Suite("Redirect parsing (a pure function)")
struct RedirectParserTests {
    @Test(
        "Valid redirects",
        arguments: [
            (
                "\(base)?code=AQAcode&state=\(state)",
                RedirectOutcome.authorized(code: "AQAcode", grantedScopes: nil, deniedScopes: nil)
            ),
            (
                "\(base)?code=AQAcode&granted_scopes=public_profile%2Cemail&denied_scopes=&state=\(state)#_=_",
                .authorized(code: "AQAcode", grantedScopes: ["public_profile", "email"], deniedScopes: [])
            ),
            (
                "\(base)?code=AQAcode&granted_scopes=public_profile&denied_scopes=email,user_posts&state=\(state)",
                .authorized(code: "AQAcode", grantedScopes: ["public_profile"], deniedScopes: ["email", "user_posts"])
            ),
            (
                "\(base)#code=AQAcode&state=\(state)",
                .authorized(code: "AQAcode", grantedScopes: nil, deniedScopes: nil)
            ),
            (
                "HTTP://127.0.0.1:53682/callback?code=a%2Bb&state=\(state)",
                .authorized(code: "a+b", grantedScopes: nil, deniedScopes: nil)
            ),
            (
                "\(base)?error=access_denied&error_code=200&error_description=Permissions+error&error_reason=user_denied&state=\(state)#_=_",
                .cancelled
            ),
            ("\(base)?error_reason=user_denied&error=access_denied&state=\(state)", .cancelled),
            // characters browsers leave raw in a query (WHATWG's query set) arrive as they were sent
            ("\(base)?code=a^b|c&state=\(state)", .authorized(code: "a^b|c", grantedScopes: nil, deniedScopes: nil)),
        ])
    func valid(redirect: String, expected: RedirectOutcome) throws {
        #expect(try RedirectParser.parse(redirect, transaction: transaction) == expected)
    }

    @Test(
        "Hostile and broken redirects are refused with a typed error",
        arguments: [
            // state: missing, different, differing in case, duplicated
            ("\(base)?code=abc", MendError.Code.Login.badChallengeString),
            ("\(base)?code=abc&state=forged", .Login.badChallengeString),
            ("\(base)?code=abc&state=\(state.uppercased())", .Login.badChallengeString),
            ("\(base)?code=abc&state=\(state)&state=\(state)", .Login.unknown),
            // an error response without our state is not our cancellation
            ("\(base)?error=access_denied&error_reason=user_denied", .Login.badChallengeString),
            // other hosts, ports, paths, schemes, credentials
            ("http://evil.example:53682/callback?code=abc&state=\(state)", .Login.unknown),
            ("http://127.0.0.1:53683/callback?code=abc&state=\(state)", .Login.unknown),
            ("http://127.0.0.1:53682/callback/extra?code=abc&state=\(state)", .Login.unknown),
            ("http://127.0.0.1:53682/Callback?code=abc&state=\(state)", .Login.unknown),
            ("https://127.0.0.1:53682/callback?code=abc&state=\(state)", .Login.unknown),
            ("http://user:pw@127.0.0.1:53682/callback?code=abc&state=\(state)", .Login.unknown),
            ("javascript:alert(1)", .Login.unknown),
            ("not a url at all", .Login.unknown),
            // tokens where only a code may come
            ("\(base)#access_token=EAAstolen&state=\(state)", .Login.unknown),
            ("\(base)?access_token=EAAstolen&state=\(state)", .Login.unknown),
            ("\(base)#id_token=eyJ.eyJ.sig&state=\(state)", .Login.unknown),
            // duplicates, parameters split across query and fragment, bad encodings, control characters
            ("\(base)?code=a&code=b&state=\(state)", .Login.unknown),
            ("\(base)?code=a&state=\(state)#code=b", .Login.unknown),
            ("\(base)?code=%ZZ&state=\(state)", .Login.unknown),
            ("\(base)?code=a%00b&state=\(state)", .Login.unknown),
            ("\(base)?code=a%0Ab&state=\(state)", .Login.unknown),
            // an escape that is not UTF-8 is refused, also when other characters would make Foundation re-encode the
            // URL (it would turn `%de` into the literal text "%de"; found by the loopback-request fuzzer)
            ("\(base)?code=a%deb&state=\(state)", .Login.unknown),
            ("\(base)?code=a%de^b&state=\(state)", .Login.unknown),
            ("\(base)?error=x%de^&error_reason=user_denied&state=\(state)", .Login.unknown),
            ("\(base)?code=&state=\(state)", .Login.unknown),
            ("\(base)?state=\(state)", .Login.unknown),
            // huge values and URLs
            ("\(base)?code=\(String(repeating: "a", count: 5000))&state=\(state)", .Login.unknown),
            ("\(base)?code=a&state=\(state)&pad=\(String(repeating: "b", count: 9000))", .Login.unknown),
            // provider errors other than the user's refusal
            ("\(base)?error=invalid_scope&error_description=bad&state=\(state)", .Login.unknown),
            ("\(base)?error=temporarily_unavailable&state=\(state)", .HTTP.serviceUnavailable),
        ])
    func hostile(redirect: String, code: MendError.Code) throws {
        let error = try #require(throws: MendError.self) {
            try RedirectParser.parse(redirect, transaction: transaction)
        }
        #expect(error.code == code, "\(error)")
        #expect(!error.userMessage(locale: Locale(identifier: "en")).contains(state))
        #expect(!error.description.contains(state))
    }

    @Test("The RFC 9207 issuer must be the provider's when present")
    func issuer() throws {
        let redirect = "\(base)?code=abc&state=\(state)&iss=https%3A%2F%2Fevil.example"
        let error = try #require(throws: MendError.self) {
            try RedirectParser.parse(redirect, transaction: transaction, expectedIssuer: "https://www.facebook.com")
        }
        #expect(error.code == .Login.badChallengeString)
        let good = "\(base)?code=abc&state=\(state)&iss=https%3A%2F%2Fwww.facebook.com"
        #expect(
            try RedirectParser.parse(good, transaction: transaction, expectedIssuer: "https://www.facebook.com")
                == .authorized(code: "abc", grantedScopes: nil, deniedScopes: nil))
    }

    @Test("Security errors show only generic text")
    func generic() throws {
        let error = try #require(throws: MendError.self) {
            try RedirectParser.parse("\(base)?code=abc&state=forged", transaction: transaction)
        }
        #expect(error.isSecuritySensitive)
        #expect(
            error.userMessage(locale: Locale(identifier: "en"))
                == MendError(code: .Login.unknown, catalog: .login).userMessage(locale: Locale(identifier: "en")))
    }
}

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("Appendix B: the verifier from its octets, and its S256 challenge")
    func appendixB() throws {
        let octets: [UInt8] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191,
            240, 91, 88, 5, 88, 83, 132, 141, 121,
        ]
        let pkce = PKCE(randomBytes: octets)
        #expect(pkce.verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
        #expect(PKCE.verify(verifier: pkce.verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: pkce.verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"))
    }

    @Test("Fresh verifiers are 43+ unreserved characters and never repeat")
    func fresh() {
        let verifiers = (0..<200).map { _ in PKCE().verifier }
        #expect(Set(verifiers).count == 200)
        #expect(verifiers.allSatisfy { $0.count == 43 && PKCE(verifier: $0) != nil })
        #expect(PKCE(verifier: "short") == nil)
        #expect(PKCE(verifier: String(repeating: "a", count: 129)) == nil)
        #expect(PKCE(verifier: String(repeating: "a", count: 42) + "!") == nil)
    }

    @Test("The authorization URL carries S256, state, nonce and the Facebook response type; never the verifier")
    func authorizationURL() throws {
        let provider = LoginProvider.facebook(appID: "1234567890")
        let (url, transaction) = AuthorizationRequest(
            provider: provider, redirectURI: URL(string: "http://127.0.0.1:5000/callback")!,
            scopes: ["public_profile", "email"],
            rerequest: true
        ).start()
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        #expect(url.absoluteString.hasPrefix("https://www.facebook.com/v25.0/dialog/oauth?"))
        #expect(value("client_id") == "1234567890")
        #expect(value("response_type") == "code granted_scopes")
        #expect(value("code_challenge_method") == "S256")
        #expect(value("code_challenge") == PKCE(verifier: transaction.codeVerifier)?.challenge)
        #expect(value("state") == transaction.state)
        #expect(value("nonce") == transaction.nonce)
        #expect(value("scope") == "public_profile,email")
        #expect(value("auth_type") == "rerequest")
        #expect(!url.absoluteString.contains(transaction.codeVerifier))
        #expect(transaction.state.count >= 43)
    }
}
