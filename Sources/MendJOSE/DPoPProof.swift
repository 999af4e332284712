import Crypto
package import Foundation
package import MendCore

/// A DPoP proof (RFC 9449 §4): the JWT a request carries in its `DPoP` header to show that its sender holds the
/// session's key. One proof per request: a replay or a retry gets a new one (a new `jti`, the time of the attempt).
///
/// Made here, on the client's side of the line, by MendJOSE's one signer; the proof's *check* is the servers'
/// (mend-server's and the emulator's), in a module no client links.
package struct DPoPProof: Sendable {
    /// The proof's JWT.
    package var jwt: String

    /// The `typ` of a DPoP proof's header.
    package static let type = "dpop+jwt"

    /// The proof of one request.
    ///
    /// - Parameters:
    ///   - signer: The session's key (ES256).
    ///   - method: The request's method (`htm`).
    ///   - url: The request's URL: `htu` is it without query and fragment, scheme and host lowercased, the default
    ///     port dropped, an empty path as `/`.
    ///   - accessToken: The access token the request presents (`ath` is its SHA-256), `nil` at the token endpoint.
    ///   - nonce: The server's latest `DPoP-Nonce`, if it gave one.
    ///   - issuedAt: The time of the attempt (`iat`), on the server's clock as far as the client knows it.
    ///   - jti: The proof's unique id (random by default).
    ///   - jwk: The signer's public key's members (``JWK/requiredMembers(of:)``), when the caller keeps them (a
    ///     session's prover makes them once); `nil`: read from `signer`.
    package init(
        signer: any JWSSigningBackend, method: String, url: URL, accessToken: String?, nonce: String?,
        issuedAt: Date, jti: String = Self.randomID(), jwk: [String: JSONValue]? = nil
    ) throws {
        var claims: [String: JSONValue] = [
            "jti": .string(jti), "htm": .string(method.uppercased()), "htu": .string(Self.htu(url)),
            "iat": .int(Int(issuedAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let accessToken { claims["ath"] = .string(Self.ath(accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        jwt = try JWSSigner.sign(
            claims: claims, with: signer, keyID: nil, type: Self.type,
            extraHeader: ["jwk": .object(jwk ?? JWK.requiredMembers(of: signer.publicKey))])
    }

    /// `htu` of a URL (RFC 9449 §4.2, compared per RFC 3986 §6.2.2–6.2.3): without query and fragment, scheme and
    /// host lowercased, the scheme's default port dropped, an empty path as `/`, and the path normalized —
    /// percent-encoded unreserved characters decoded (`%73` is `s`), the other escapes' hex digits upper-cased, dot
    /// segments removed (`/v1/./a/../session` is `/v1/session`). The server normalises its side the same way, so a
    /// proof written by a client that spells the URL another equivalent way is taken (§4.3).
    package static func htu(_ url: URL) -> String {
        plainHTU(url.absoluteString) ?? normalizedHTU(url)
    }

    /// ``htu(_:)`` through `URLComponents`, whatever the URL's form.
    static func normalizedHTU(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) {
            components.port = nil
        }
        let path = normalizedPath(components.percentEncodedPath)
        components.percentEncodedPath = path.isEmpty ? "/" : path
        return components.string ?? url.absoluteString
    }

    /// `htu` of the URL `text` (``htu(_:)``), or the text itself when it is not a URL.
    package static func htu(text: String) -> String {
        if let plain = plainHTU(text) { return plain }
        return URL(string: text).map(htu) ?? text
    }

    /// `htu` of `text` without parsing it, when it is already in `htu`'s form but for a query and a fragment: `http` or
    /// `https` in lower case, a host of lower-case letters, digits, dots and hyphens with no default port, and a
    /// non-empty path of plain characters (no escape, no dot segment). `nil` for anything else, which ``htu(_:)``
    /// normalizes through `URLComponents`: the common case, a URL a client built from its parts, skips that parse.
    static func plainHTU(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let https = bytes.starts(with: "https://".utf8)
            guard https || bytes.starts(with: "http://".utf8) else { return nil }
            var index = https ? 8 : 7
            let hostStart = index
            var portStart: Int?
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."),
                    UInt8(ascii: "-"):
                    if portStart != nil, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { return nil }
                case UInt8(ascii: ":") where portStart == nil: portStart = index + 1
                default: return nil
                }
                index += 1
            }
            guard index > hostStart, index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
            if let portStart {
                let port = bytes[portStart..<index]
                guard !port.isEmpty, port.first != UInt8(ascii: "0"), portStart - 1 > hostStart else { return nil }
                guard !port.elementsEqual((https ? "443" : "80").utf8) else { return nil }
            }
            var segmentStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"),
                    UInt8(ascii: "."):
                    break
                case UInt8(ascii: "/"):
                    // A segment of "." or ".." (a dot segment) needs removing: not plain.
                    if isDotSegment(bytes[segmentStart..<index]) { return nil }
                    segmentStart = index + 1
                default: return nil
                }
                index += 1
            }
            if isDotSegment(bytes[segmentStart..<index]) { return nil }
            return String(decoding: bytes[..<index], as: UTF8.self)
        }
    }

    private static func isDotSegment(_ segment: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8)
    }

    /// RFC 3986 §6.2.2.2 and §6.2.2.3 on a percent-encoded path: unreserved characters decoded, the other escapes'
    /// hex upper-cased, then the dot segments removed (§5.2.4).
    static func normalizedPath(_ path: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(path.utf8)[...]
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%"), input.count >= 2, let high = hex(input[input.startIndex]),
                let low = hex(input[input.startIndex + 1])
            else {
                bytes.append(byte)
                continue
            }
            input = input.dropFirst(2)
            let decoded = high << 4 | low
            let isUnreserved =
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(decoded)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(decoded)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(decoded)
                || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(decoded)
            if isUnreserved {
                bytes.append(decoded)
            } else {
                bytes.append(contentsOf: Array(String(format: "%%%02X", decoded).utf8))
            }
        }
        return removingDotSegments(String(decoding: bytes, as: UTF8.self))
    }

    /// RFC 3986 §5.2.4, segment by segment.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let isAbsolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if isAbsolute, index == 0 { continue }  // the empty segment before the first slash
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (isAbsolute ? "/" : "") + output.joined(separator: "/")
    }

    /// `ath`: base64url(SHA-256(the access token's ASCII)).
    package static func ath(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(accessToken.utf8)))
    }

    /// 16 random bytes, base64url: a `jti`.
    package static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
