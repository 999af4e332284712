import Foundation
import MendRecording

/// The secrets the `har-redaction` target plants: one realistic value of every kind Mend knows (made for the fuzzer,
/// valid for nothing), and the forms none of them may keep in a redacted HAR.
enum HARSecrets {
    /// One secret: its kind (what a violation names; the value is never printed), its text as a sink would hold it,
    /// the parts of it that must not survive, and where the vocabulary recognises it.
    struct Secret: Sendable {
        /// What a violation names it by.
        var kind: String
        /// The secret as written (a header's whole value, a JSON string's).
        var text: String
        /// What must not survive, in any encoding: the whole secret, or its secret part (an app token's app id, a
        /// signing key's `kid:ALG:` and a database URL's user and host are no secrets).
        var cores: [String]
        /// Whether its shape gives it away wherever it is (else only its name, a credential header or a scheme do).
        var shaped: Bool
        /// The parameter and JSON member names it is sent under (each in the vocabulary's names).
        var names: [String]
        /// Whether it spans lines (a PEM key): not in a header.
        var multiline = false
        /// The forms of its cores that must not be in a redacted HAR (made once).
        var forms: [Form] { HARSecrets.formsByKind[kind] ?? [] }
        /// The secret without its own scheme (what a `Basic` credential or another scheme carries).
        var token: String { text.hasPrefix("Bearer ") ? String(text.dropFirst(7)) : text }
        /// Whether, after a scheme, the vocabulary takes it for a credential: its leading run of credential
        /// characters has a digit or 24 characters or more.
        var isSchemeToken: Bool {
            let run = token.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~+/".contains($0)) }
            return !multiline && run.count >= 8 && (run.count >= 24 || run.contains(where: \.isNumber))
        }
    }

    /// One encoding of a secret, as it would appear in the redacted HAR's text.
    struct Form: Sendable {
        var encoding: String
        var text: String
    }

    static let jwt =
        "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL21lbmQuZXhhbXBsZSIsInN1YiI6IjEwMDAwMDAw"
        + "MDAwMDAwMSIsImF1ZCI6IjEyMzQ1Njc4OTAiLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMzYwMCwianRpIjoiYTFiMmMzIn0.qKOu_"
        + "RVFy9xqRBhhh__Dw5xknAE6bTTjAC9mkD8P8Xf2l6vSghzIkPadGa97s1xTMvwwp8Q4y9OwBBCgRxTatA"
    static let jwtSignature = String(jwt.split(separator: ".")[2])
    static let graphToken =
        "EAAGgQGO6xLZUEwSzZWKt4u5G7qzpSfBfAAsUE3ilg6R0SUUL5ASPiC1acRDzhTYFjy9DPZY11nCHeH1C0vBOWimUKov2nej0r7DoLBHKrQ5EH9I"
        + "iwQGDUcPrZCIIbvL7lCL6WNIecDrGwVm3TGC00rhMWcBTyf1KbD7BWjuy9iI5OHIaTPvaYR5"
    static let appSecretPart = "OADGTBIHXtcK79YHOH4WHKnGAWPXsumn"
    static let bearerToken = "FcGdNuGo1MxGnupD2JX2iK0x0TrxI2Oo-j4JHZSZJi8"
    static let authorizationCode =
        "AQD5OhLWVm5RuletidU9eysZr4Hb9_RPZLD2kcALDO9zD7j5or2MxqzAEB0pWwwj7U_koecSE6Yrmm6bS_51MDA7FV0SVeANpDhBpV-A2QlyT_"
        + "uURZbgbC9N46AVLfk8U1111fZ2stuQfwVC-2bjurJGsKKb1drNtLHCyDz2NfOBGFuEw2YFqh7epTsprxlcaagEPyxv-gxPdoPNuH0lQCGT3eX1"
        + "5PEr1uzt5PMn2SdF3qnhkXG"
    static let databasePassword = "ETZo8e99Sk4u7KFNwFWm"
    static let signingKey = "L6jmSFWxa93xxkHtCxx3dsZY6eSPxPsnA6ugT-1Inko"
    static let pemLines = [
        "Azo1VAdXLOK2k53gHvzv2xJlQKWhRANCAATxrxlQCqaGo35dP63kswgOXI+SFub3",
        "d6R9tcMkbDPuBPECsPWLaRf2o/+9m/oJkMIb+hhSG2MMD9wHQYde7t16",
    ]
    static let pem =
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDAWbWLeRdzwq3lDf\n"
        + pemLines.joined(separator: "\n") + "\n-----END PRIVATE KEY-----"

    /// Every kind of secret Mend mints, relays, sends or holds.
    static let all: [Secret] = [
        Secret(
            kind: "mrt_ refresh token", text: "mrt_D708qlqXx2TBe4WtbNWz3lXDxjoeuk4lWhSH0ValKve",
            cores: ["mrt_D708qlqXx2TBe4WtbNWz3lXDxjoeuk4lWhSH0ValKve"], shaped: true,
            names: ["refresh_token", "refreshToken", "token", "session_token"]),
        Secret(
            kind: "mend_admin_ token", text: "mend_admin_xMYT5sD3T4i6f29e_9C1ImXFADGvNUr8vTh_Qk1jAUr",
            cores: ["mend_admin_xMYT5sD3T4i6f29e_9C1ImXFADGvNUr8vTh_Qk1jAUr"], shaped: true,
            names: ["admin_token", "mend_admin_token", "token", "api_key"]),
        Secret(
            kind: "JWT", text: jwt, cores: [jwt, jwtSignature], shaped: true,
            names: ["access_token", "id_token", "idToken", "assertion", "client_assertion", "subject_token"]),
        Secret(
            kind: "EAA Graph token", text: graphToken, cores: [graphToken], shaped: true,
            names: ["access_token", "accessToken", "input_token", "fb_exchange_token", "provider_token"]),
        Secret(
            kind: "app token", text: "1234567890123456|" + appSecretPart, cores: [appSecretPart], shaped: true,
            names: ["access_token", "token", "accesstoken"]),
        Secret(
            kind: "Bearer credential", text: "Bearer " + bearerToken, cores: [bearerToken], shaped: true,
            names: ["authorization", "access_token"]),
        Secret(
            kind: "authorization code", text: authorizationCode, cores: [authorizationCode], shaped: false,
            names: ["code", "authorization_code"]),
        Secret(
            kind: "PKCE verifier", text: "jWeim1sqptbhBdX5E83fKw0UVNNnZXirjliSmtA~_hjoF30FhTbJ.0Ja.HSwTxjX",
            cores: ["jWeim1sqptbhBdX5E83fKw0UVNNnZXirjliSmtA~_hjoF30FhTbJ.0Ja.HSwTxjX"], shaped: false,
            names: ["code_verifier"]),
        Secret(
            kind: "database URL password", text: "postgres://mend:\(databasePassword)@db.internal:5432/mend",
            cores: [databasePassword], shaped: true, names: ["password", "secret"]),
        Secret(
            kind: "database URL password (URL with a query)",
            text: "postgres://mend:\(databasePassword)@db.internal:5432/mend?sslmode=require",
            cores: [databasePassword], shaped: true, names: ["password", "secret"]),
        Secret(
            kind: "EdDSA signing key", text: "k1:EdDSA:" + signingKey, cores: [signingKey], shaped: true,
            names: ["signing_key", "signing_keys", "mend_signing_keys"]),
        Secret(
            kind: "app secret", text: "764d55aa2eacc4a22e286f799d735f69", cores: ["764d55aa2eacc4a22e286f799d735f69"],
            shaped: false, names: ["client_secret", "clientSecret", "app_secret", "appsecret", "mend_app_secret"]),
        Secret(
            kind: "login state", text: "pZLvzTo-HYfR8X1Ao1JQRo3TcHFw-M4n", cores: ["pZLvzTo-HYfR8X1Ao1JQRo3TcHFw-M4n"],
            shaped: false, names: ["state", "nonce"]),
        Secret(
            kind: "device code", text: "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS",
            cores: ["GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"], shaped: false, names: ["device_code"]),
        Secret(kind: "user code", text: "WDJB-MJHT", cores: ["WDJB-MJHT"], shaped: false, names: ["user_code"]),
        Secret(
            kind: "PEM private key", text: pem, cores: pemLines, shaped: true, names: ["private_key"], multiline: true),
    ]

    /// The shortest value of a name that is a secret outside a query (MendCore's `SecretVocabulary.minimumLengths`):
    /// a plant under one of these names is always at least this long.
    static let minimumLengths = ["code": 20, "state": 16, "nonce": 16, "token": 8]

    /// Whether `secret` (as `text`) is a secret under `name` wherever the name sits.
    static func fits(_ text: String, under name: String) -> Bool {
        text.count >= minimumLengths[name.lowercased(), default: 1]
    }

    // MARK: Encodings

    /// The unreserved characters (RFC 3986): what percent-encoding leaves as is.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Percent-encoding, as a query or a form writes a value.
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    static func unpadded(_ base64: String) -> String { String(base64.prefix { $0 != "=" }) }

    static func base64URL(_ text: String) -> String {
        unpadded(base64(text)).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// MIME's base64: lines of 76 characters.
    static func wrapped(_ base64: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(rest.prefix(76))
            rest = rest.dropFirst(76)
        }
        return lines.joined(separator: "\r\n")
    }

    /// Standard base64 with or without padding, whitespace ignored.
    static func decodeBase64(_ text: String) -> Data? {
        let compact = text.filter { !$0.isWhitespace }
        let remainder = compact.utf8.count % 4
        return Data(base64Encoded: remainder == 0 ? compact : compact + String(repeating: "=", count: 4 - remainder))
    }

    /// Every form of `core` that a redacted HAR must not hold: raw, percent-encoded (both cases of hex), base64 with
    /// and without padding, base64url, and base64 at each of the three alignments inside a longer base64 text (a body
    /// that holds it).
    static func forms(of core: String) -> [Form] {
        var forms = [Form(encoding: "raw", text: core)]
        let escaped = percentEncoded(core)
        if escaped != core {
            forms.append(Form(encoding: "URL-encoded", text: escaped))
            var lowercaseHex = ""
            var hexLeft = 0
            for character in escaped {
                lowercaseHex.append(hexLeft > 0 ? Character(character.lowercased()) : character)
                hexLeft = character == "%" ? 2 : max(0, hexLeft - 1)
            }
            if lowercaseHex != escaped {
                forms.append(Form(encoding: "URL-encoded (lowercase hex)", text: lowercaseHex))
            }
        }
        let encoded = base64(core)
        if encoded.hasSuffix("=") { forms.append(Form(encoding: "base64 (padded)", text: encoded)) }
        forms.append(Form(encoding: "base64 (unpadded)", text: unpadded(encoded)))
        forms.append(Form(encoding: "base64url", text: base64URL(core)))
        for offset in 0..<3 {
            let shifted = (Data(repeating: 0, count: offset) + Data(core.utf8)).base64EncodedString()
            let inner = shifted.dropFirst(offset == 0 ? 0 : 4).dropLast(4)
            if inner.count >= 8 {
                forms.append(
                    Form(encoding: "base64 inside a longer base64 text (offset \(offset))", text: String(inner)))
            }
        }
        return forms
    }

    /// A `Basic` credential (RFC 7617) whose password is `text`, and the forms it must not keep.
    static func basic(_ text: String) -> (header: String, forms: [Form]) {
        let encoded = base64("1234567890:" + text)
        return (
            "Basic " + encoded,
            [
                Form(encoding: "Basic credential (base64 of user:secret)", text: encoded),
                Form(encoding: "Basic credential, unpadded", text: unpadded(encoded)),
            ]
        )
    }

    // MARK: Plain text

    /// Low-entropy words: what ordinary HAR text is made of (none of them a secret name).
    static let words = [
        "apple", "river", "stone", "cloud", "green", "table", "paper", "light", "music", "house", "garden", "window",
        "summer", "winter", "yellow", "orange", "silver", "forest", "little", "people", "friend", "family", "simple",
        "photo", "album", "event", "group", "share", "video", "story", "media", "hello", "world", "ready", "later",
        "again", "north", "south", "basic", "bearer", "access", "session", "expired", "please", "invalid", "request",
        "error", "limit", "user", "page", "item", "list", "post", "feed", "like", "done", "open",
    ]

    /// Sentences providers write, each a plain message (no secret in them).
    static let sentences = [
        "Error validating access token: Session has expired.", "Please log in again.",
        "(#200) Requires extended permission: publish_actions",
        "An unexpected error has occurred. Please retry your request later.", "Invalid OAuth access token signature.",
        "The session has been invalidated because the user changed their password.",
        "Basic information about the page.", "OAuth provider unavailable", "Bearer of good news",
    ]

    /// JSON member names that are no secret names.
    static let keys = [
        "id", "data", "type", "message", "title", "items", "summary", "count", "label", "kind", "status", "detail",
        "info", "meta", "extra", "note", "text", "link", "created", "owner", "tags", "fields", "result", "payload",
        "body", "event", "error", "locale", "paging", "cursor", "after", "fbtrace_id", "trace_id",
    ]

    /// `_`-prefixed fields browsers and proxies add.
    static let extensionKeys = [
        "_initiator", "_priority", "_resourceType", "_fromCache", "_transferSize", "_custom", "_debug", "_notes",
        "_extra", "_error", "_securityDetails",
    ]

    static let hosts = ["graph.example.com", "api.example.org", "mend.example", "127.0.0.1:8080", "localhost:8765"]

    /// Credential headers (each in the vocabulary's headers).
    static let credentialHeaders = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "DPoP", "X-Api-Key", "Appacitive-Apikey",
        "X-Appacitive-Session", "X-Access-Token", "X-Admin-Token",
    ]

    /// Other headers: ordinary, holding URLs, and a few whose values the scan accepts however random.
    static let otherHeaders = [
        "Accept", "Content-Type", "User-Agent", "X-Debug", "X-Upstream", "Location", "Referer", "Warning", "Via",
        "ETag", "X-FB-Trace-ID", "X-Request-Id",
    ]
}

extension HARSecrets {
    /// Every name a secret is planted under.
    static let secretNames = Array(Set(all.flatMap(\.names))).sorted()

    /// The names whose values the scan accepts however random (no random string is planted under them).
    static let allowedNames = RedactionRules.standard.allowedNames

    /// The forms of each secret's cores, by kind.
    static let formsByKind = Dictionary(
        all.map { secret in (secret.kind, secret.cores.flatMap(forms(of:))) }, uniquingKeysWith: { first, _ in first })

    /// Every form of every secret.
    static let allForms = Array(Set(all.flatMap { $0.forms.map(\.text) })).sorted()

    /// Whether `text` holds a form of a planted secret.
    static func containsAnyForm(_ text: String) -> Bool { allForms.contains { text.contains($0) } }
}
