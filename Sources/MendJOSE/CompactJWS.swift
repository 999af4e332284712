package import Foundation
package import MendCore

/// A JWS header (RFC 7515 §4) as Mend's verifiers read it: through the strict JSON reader, its algorithm one of
/// ``JWSAlgorithm``, no `crit` (Mend understands no extension: RFC 7515 §4.1.11 says refuse), no `b64` (RFC 7797's
/// unencoded payloads are not JWTs).
package struct JWSHeader: Sendable {
    /// `alg`.
    package var algorithm: JWSAlgorithm
    /// `kid`, when present.
    package var keyID: String?
    /// `typ`, when present.
    package var type: String?
    /// Every member, for what a use reads beyond these (`jwk` of a DPoP proof).
    package var members: [String: JSONValue]

    /// Reads a header's JSON text.
    package init(json: some Collection<UInt8>) throws(JOSEError) {
        guard let members = JSONValue.parseObject(json) else {
            throw .malformed("its header is not a JSON object (each member once)")
        }
        try self.init(members: members)
    }

    /// Reads a header's members.
    package init(members: [String: JSONValue]) throws(JOSEError) {
        guard case .string(let alg)? = members["alg"] else { throw .header("its header names no algorithm (alg)") }
        guard let algorithm = JWSAlgorithm(headerValue: alg) else { throw JOSEError.unsupportedAlgorithm }
        guard members["crit"] == nil else {
            throw .header("its header has crit, naming extensions Mend does not understand")
        }
        guard members["b64"] == nil else { throw .header("its header has b64 (an unencoded payload)") }
        switch members["kid"] {
        case nil: keyID = nil
        case .string(let text)?: keyID = text
        default: throw .header("its kid is not a string")
        }
        switch members["typ"] {
        case nil: type = nil
        case .string(let text)?: type = text
        default: throw .header("its typ is not a string")
        }
        self.algorithm = algorithm
        self.members = members
    }
}

/// A compact JWS (RFC 7515 §7.1) split and decoded, its signature not yet checked: the claims are reachable only
/// through ``verified(with:allowed:)``.
///
/// The shape is strict: at most the use's length; exactly three parts; each part canonical base64url (RFC 7515 §2:
/// no padding, no second spelling of the same bytes); the header read as ``JWSHeader`` reads it. Five parts (JWE) or
/// two are refused as not a JWS.
package struct CompactJWS: Sendable {
    /// The header.
    package let header: JWSHeader
    /// The JWS signing input's bytes (`header.payload`, as sent).
    private let signingInput: [UInt8]
    /// The payload, decoded.
    private let payload: [UInt8]
    /// The signature, decoded.
    private let signature: [UInt8]

    /// The default bound on a token's length: an id_token with many claims fits; 64 KiB would not be a token.
    package static let defaultMaximumLength = 16_384

    /// Splits and decodes `token`, and reads its header.
    package init(_ token: some StringProtocol, maximumLength: Int = defaultMaximumLength) throws(JOSEError) {
        var text = String(token)
        let result: Result<CompactJWS, JOSEError> = text.withUTF8 { bytes in
            do throws(JOSEError) {
                return .success(try CompactJWS(bytes: bytes, maximumLength: maximumLength))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// ``init(_:maximumLength:)`` over the token's UTF-8 bytes.
    package init(bytes: UnsafeBufferPointer<UInt8>, maximumLength: Int = defaultMaximumLength) throws(JOSEError) {
        try self.init(bytes: bytes, parts: try Self.split(bytes, maximumLength: maximumLength))
    }

    /// The token of `bytes`, already split into `parts` (``split(_:maximumLength:)``); its header read here.
    package init(bytes: UnsafeBufferPointer<UInt8>, parts: Parts) throws(JOSEError) {
        guard let headerJSON = Base64URL.decodeCanonical(buffer: UnsafeBufferPointer(rebasing: bytes[..<parts.first]))
        else { throw .malformed("its header is not canonical base64url") }
        self.init(bytes: bytes, parts: parts, header: try JWSHeader(json: headerJSON))
    }

    /// The token of `bytes`, split into `parts`, whose header part is byte for byte one already read as `header`
    /// (a DPoP verifier's cache of the last proof header it accepted: a client sends the same one on every request).
    package init(bytes: UnsafeBufferPointer<UInt8>, parts: Parts, header: JWSHeader) {
        self.header = header
        payload = parts.payload
        signature = parts.signature
        signingInput = Array(bytes[..<parts.second])
    }

    /// The parts of a compact JWS: where its two dots are, its payload and signature decoded.
    package struct Parts {
        /// The first dot's index (the header part ends there).
        package var first: Int
        /// The second dot's index (the signing input ends there).
        package var second: Int
        package var payload: [UInt8]
        package var signature: [UInt8]
    }

    /// The parts of `bytes`: at most `maximumLength` bytes, exactly two dots, no part empty but the payload, the
    /// payload and signature canonical base64url. The header part is the caller's to read.
    package static func split(_ bytes: UnsafeBufferPointer<UInt8>, maximumLength: Int) throws(JOSEError) -> Parts {
        guard bytes.count <= maximumLength else { throw .malformed("it is longer than this use allows") }
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot), first > 0,
            let second = bytes[(first + 1)...].firstIndex(of: dot), second + 1 < bytes.count,
            !bytes[(second + 1)...].contains(dot)
        else { throw .malformed("it is not a compact JWS of three parts") }
        guard
            let payload = Base64URL.decodeCanonical(buffer: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
            let signature = Base64URL.decodeCanonical(buffer: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]))
        else { throw .malformed("a part is not canonical base64url") }
        return Parts(first: first, second: second, payload: payload, signature: signature)
    }

    /// The header's and the payload's members of a compact JWS whose signature nobody checks here: for showing what a
    /// token says (`mend token`'s `cnf.jkt`) and a recording's template of it — never for a decision. The shape is
    /// held as for a verified token (three canonical base64url parts, JSON objects whose members come once), any
    /// `alg` included: what is shown is what a verifier would read.
    package static func unverifiedContents(
        of token: some StringProtocol, maximumLength: Int = defaultMaximumLength
    ) -> (header: [String: JSONValue], claims: [String: JSONValue])? {
        var text = String(token)
        return text.withUTF8 { bytes -> (header: [String: JSONValue], claims: [String: JSONValue])? in
            guard let parts = try? split(bytes, maximumLength: maximumLength),
                let headerJSON = Base64URL.decodeCanonical(
                    buffer: UnsafeBufferPointer(rebasing: bytes[..<parts.first])),
                let header = JSONValue.parseObject(headerJSON), let claims = JSONValue.parseObject(parts.payload)
            else { return nil }
            return (header, claims)
        }
    }

    /// The verified token, when `key` signed it and its algorithm is both `key`'s and on the use's allow-list.
    package func verified(with key: JWSPublicKey, allowed: JWSAlgorithms) throws(JOSEError) -> VerifiedJWS {
        guard allowed.allowed.contains(header.algorithm) else {
            throw .header("its algorithm is not one this use accepts")
        }
        guard header.algorithm == key.algorithm else { throw .key("its algorithm is not its key's") }
        guard key.isValidSignature(signature, for: signingInput) else { throw JOSEError.badSignature }
        return VerifiedJWS(header: header, payload: payload)
    }
}

/// A JWS whose signature verified: its header and payload.
package struct VerifiedJWS: Sendable {
    package let header: JWSHeader
    /// The payload's bytes.
    package let payload: [UInt8]

    /// The payload as a JWT's claims: a JSON object, each member once.
    package func claims() throws(JOSEError) -> JWTClaims {
        guard let members = JSONValue.parseObject(payload) else {
            throw .malformed("its claims are not a JSON object (each member once)")
        }
        return JWTClaims(members)
    }
}

/// Mend's one JWS signer (compact serialization).
package enum JWSSigner {
    /// The header segment (base64url of the header's JSON) that ``sign(claims:with:keyID:type:extraHeader:)``
    /// writes for these values: `{"alg":…,"kid":…,"typ":…}`, members in order of their names.
    package static func headerSegment(
        algorithm: JWSAlgorithm, keyID: String?, type: String?, extraHeader: [String: JSONValue] = [:]
    ) -> String {
        var members = extraHeader
        members["alg"] = .string(algorithm.rawValue)
        if let keyID { members["kid"] = .string(keyID) }
        if let type { members["typ"] = .string(type) }
        return Base64URL.encode(Array(JSONValue.object(members).jsonText().utf8))
    }

    /// A compact JWS of `payload`'s bytes, signed by `key`.
    package static func sign(
        payload: some Collection<UInt8>, with key: some JWSSigningBackend, keyID: String?, type: String? = "JWT",
        extraHeader: [String: JSONValue] = [:]
    ) throws -> String {
        let input =
            headerSegment(algorithm: key.algorithm, keyID: keyID, type: type, extraHeader: extraHeader) + "."
            + Base64URL.encode(payload)
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// A compact JWS of `claims` (their JSON text, members in order of their names), signed by `key`.
    package static func sign(
        claims: [String: JSONValue], with key: some JWSSigningBackend, keyID: String?, type: String? = "JWT",
        extraHeader: [String: JSONValue] = [:]
    ) throws -> String {
        try sign(
            payload: Array(JSONValue.object(claims).jsonText().utf8), with: key, keyID: keyID, type: type,
            extraHeader: extraHeader)
    }
}
