import Foundation
import MendCore
@_spi(MendFuzzing) import MendLogin

/// `RedirectParser.parse` on the redirect URL (the whole input; an input starting with `?` or `#` is appended to the
/// transaction's redirect URI), and `RedirectParser.parameters` on the input as a query.
///
/// Invariants: an accepted redirect goes to the redirect URI's host and carries a code without control characters;
/// re-encoding the outcome parses back to the same outcome; refusals are login errors (or the provider's transient
/// error) with bounded messages; decoded parameters re-encode to the same parameters.
enum RedirectHarness {
    static let redirectURI = "http://127.0.0.1:8765/callback"
    static let state = "fuzz-state-0123456789"
    static let issuer = "https://www.facebook.com"
    static let transaction = AuthorizationTransaction(
        state: state, nonce: "fuzz-nonce", codeVerifier: "fuzz-verifier", redirectURI: URL(string: redirectURI)!,
        scopes: ["public_profile", "email"], isRerequest: false, createdAt: fuzzNow)

    /// The unreserved characters (RFC 3986): what form encoding leaves as is.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved)!
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = bytes.text
        let redirect = text.hasPrefix("?") || text.hasPrefix("#") ? redirectURI + text : text
        checkParse(redirect)
        checkParameters(text)
    }

    static func checkParse(_ redirect: String) {
        let outcome: RedirectOutcome
        do {
            outcome = try RedirectParser.parse(redirect, transaction: transaction, expectedIssuer: issuer)
        } catch {
            trace("redirect: \(error)")
            let allowed: Set<MendError.Domain> = [.login, .http]
            invariant(allowed.contains(error.domain), "a refusal in the \(error.domain) domain: \(error)")
            invariant(error.developerMessage.utf8.count <= 8192, "an unbounded refusal message")
            return
        }
        trace("redirect: \(outcome)")
        invariant(
            URLComponents(string: redirect)?.host?.lowercased() == "127.0.0.1", "accepted a redirect to another host")
        guard case .authorized(let code, let granted, let denied) = outcome else { return }
        invariant(!code.isEmpty, "an empty code")
        invariant(!code.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a code with controls")
        var query = "code=\(encode(code))&state=\(encode(state))"
        if let granted { query += "&granted_scopes=\(encode(granted.joined(separator: ",")))" }
        if let denied { query += "&denied_scopes=\(encode(denied.joined(separator: ",")))" }
        let again = try? RedirectParser.parse(redirectURI + "?" + query, transaction: transaction)
        invariant(
            again == outcome, "the outcome \(outcome) re-encoded as \(query) parses as \(String(describing: again))")
    }

    static func checkParameters(_ query: String) {
        guard let parameters = try? RedirectParser.parameters(query) else { return }
        for (name, value) in parameters {
            invariant(!name.isEmpty, "an empty parameter name")
            invariant(value.count <= RedirectParser.maximumValueLength, "a value over the limit")
            invariant(!value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a value with controls")
        }
        let encoded = parameters.sorted { $0.key < $1.key }.map { "\(encode($0.key))=\(encode($0.value))" }
            .joined(separator: "&")
        let again = try? RedirectParser.parameters(encoded)
        invariant(again == parameters, "parameters \(parameters) re-encoded as \(encoded) parse differently")
    }
}
