public import Foundation
public import MendCore

/// What a redirect back from the provider says.
public enum RedirectOutcome: Sendable, Hashable {
    /// The user authorized: the code to exchange, and the scopes granted and denied (Facebook reports both).
    case authorized(code: String, grantedScopes: [String]?, deniedScopes: [String]?)
    /// The user cancelled (`error=access_denied`, `error_reason=user_denied`): not an error.
    case cancelled
}

/// Reads the provider's redirect, refusing anything that is not exactly the answer to this transaction.
///
/// A pure function. It refuses, with a typed `MendError` and without storing anything:
/// - another scheme, host, port or path than the transaction's redirect URI (`login/301`);
/// - a missing or different `state` (`login/308`, a possible forgery; compared in constant time), and an `iss`
///   that is not the provider's, or no `iss` from a provider that always sends one (RFC 9207 mix-up defence,
///   `login/308`; error responses too: a provider's refusal is believed only from the provider);
/// - tokens in the fragment in the code flow, duplicate parameters, parameters in both query and fragment,
///   invalid percent-encoding, control characters, oversized URLs or values (`login/301`);
/// - a provider `error` other than the user's refusal (`login/301`, or a transient error for
///   `temporarily_unavailable` / `server_error`).
public enum RedirectParser {
    /// The longest redirect URL accepted.
    public static let maximumURLLength = 8192
    /// The longest parameter value accepted.
    public static let maximumValueLength = 4096

    /// Parses `redirect` as the answer to `transaction`.
    ///
    /// - Parameters:
    ///   - redirect: The URL the browser was sent to, as received (text, so that nothing was normalized).
    ///   - transaction: The login attempt it must answer.
    ///   - expectedIssuer: The provider's issuer; when the redirect carries `iss`, it must equal this.
    ///   - requiresIssuer: Whether the provider puts `iss` in every authorization response (RFC 9207:
    ///     ``LoginProvider/requiresAuthorizationResponseIssuer``); then a redirect must carry `iss`, equal to
    ///     `expectedIssuer` (and without an `expectedIssuer`, every redirect is refused).
    public static func parse(
        _ redirect: String, transaction: AuthorizationTransaction, expectedIssuer: String? = nil,
        requiresIssuer: Bool = false
    ) throws(MendError) -> RedirectOutcome {
        guard redirect.utf8.count <= maximumURLLength else { throw refused("the redirect URL is too long") }
        guard !redirect.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw refused("the redirect URL contains spaces or control characters")
        }
        guard validEscapes(Substring(redirect)) else { throw refused("the redirect has invalid percent-encoding") }
        guard let components = URLComponents(string: redirect), let scheme = components.scheme else {
            throw refused("the redirect is not a URL")
        }
        let expected = URLComponents(url: transaction.redirectURI, resolvingAgainstBaseURL: false)
        guard scheme.lowercased() == expected?.scheme?.lowercased(),
            (components.host ?? "").lowercased() == (expected?.host ?? "").lowercased(),
            components.port == expected?.port,
            components.percentEncodedPath == (expected?.percentEncodedPath ?? ""),
            components.user == nil, components.password == nil
        else { throw refused("the redirect does not go to the expected redirect URI") }

        // The query and fragment as received, not as `URLComponents` holds them: given a character it does not
        // allow (`^`, `|`: browsers send them raw), it re-encodes the whole URL, `%` too, which would turn an escape
        // that is not UTF-8 (`%de`) into literal text instead of refusing it (the loopback receiver reads the raw
        // text, and must agree).
        let (rawQuery, rawFragment) = queryAndFragment(redirect)
        let query = try parameters(rawQuery)
        var fragment = try parameters(rawFragment)
        fragment["_"] = nil  // Facebook appends `#_=_` to redirects.
        for name in fragment.keys where query[name] != nil {
            throw refused("the parameter '\(name)' appears in both the query and the fragment")
        }
        if fragment["access_token"] != nil || query["access_token"] != nil || fragment["id_token"] != nil {
            throw refused("a token arrived in the redirect; the code flow never accepts one")
        }
        let all = query.merging(fragment) { first, _ in first }

        guard let state = all["state"], ConstantTime.equal(state, transaction.state) else {
            throw MendError.login(
                .Login.badChallengeString,
                all["state"] == nil
                    ? "The redirect carries no state." : "The redirect's state differs from the one sent.")
        }
        if requiresIssuer {
            guard let issuer = all["iss"] else {
                throw MendError.login(
                    .Login.badChallengeString,
                    "The redirect carries no iss, though the provider always sends one (RFC 9207 mix-up defence).")
            }
            guard let expectedIssuer, issuer == expectedIssuer else {
                throw MendError.login(
                    .Login.badChallengeString, "The redirect's iss is not the provider's (mix-up defence).")
            }
        } else if let issuer = all["iss"], let expectedIssuer, issuer != expectedIssuer {
            throw MendError.login(
                .Login.badChallengeString, "The redirect's iss is not the provider's (mix-up defence).")
        }
        if let error = all["error"] {
            if error == "access_denied" || all["error_reason"] == "user_denied" { return .cancelled }
            let description = all["error_description"].map { ": \(String($0.prefix(300)))" } ?? ""
            if error == "temporarily_unavailable" || error == "server_error" {
                throw MendError(
                    code: .HTTP.serviceUnavailable, developerMessage: "The provider said \(error)\(description).",
                    catalog: .login)
            }
            throw MendError.login(.Login.unknown, "The provider refused the login: \(error)\(description).")
        }
        guard let code = all["code"], !code.isEmpty else { throw refused("the redirect carries no code") }
        return .authorized(
            code: code, grantedScopes: all["granted_scopes"].map(scopes), deniedScopes: all["denied_scopes"].map(scopes)
        )
    }

    /// The text after the first `?` (up to the first `#`) and after the first `#`, as `URLComponents` splits a
    /// valid URL.
    private static func queryAndFragment(_ url: String) -> (query: String?, fragment: String?) {
        let hash = url.firstIndex(of: "#")
        let beforeFragment = url[..<(hash ?? url.endIndex)]
        let query = beforeFragment.firstIndex(of: "?").map {
            String(beforeFragment[beforeFragment.index(after: $0)...])
        }
        return (query, hash.map { String(url[url.index(after: $0)...]) })
    }

    private static func scopes(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init).filter { !$0.isEmpty }
    }

    private static func refused(_ reason: String) -> MendError {
        MendError.login(.Login.unknown, "The redirect was refused: \(reason).")
    }

    /// Decodes `name=value&…` (form encoding: `+` is a space), refusing duplicates, bad escapes and huge values.
    @_spi(MendFuzzing) public static func parameters(_ encoded: String?) throws(MendError) -> [String: String] {
        guard let encoded, !encoded.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty,
                let value = parts.count > 1 ? decode(parts[1]) : ""
            else { throw refused("a parameter is not validly encoded") }
            guard value.count <= maximumValueLength else { throw refused("the parameter '\(name)' is too long") }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw refused("the parameter '\(name)' contains control characters")
            }
            guard result[name] == nil else { throw refused("the parameter '\(name)' appears twice") }
            result[name] = value
        }
        return result
    }

    private static func decode(_ text: Substring) -> String? {
        guard validEscapes(text) else { return nil }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Whether every `%` starts a valid escape (Foundation would pass `%ZZ` through, or re-encode it).
    private static func validEscapes(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
