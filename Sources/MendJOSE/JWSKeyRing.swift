import MendCore

/// The keys one issuer verifies its own tokens with, by `kid`, for one use: mend-server's session tokens.
///
/// A token of this issuer's own signer (``JWSSigner``, the header `{"alg":…,"kid":…,"typ":…}` it always writes) is
/// matched to its key by the header's exact bytes, without decoding it; any other header (a token signed before by
/// another library, its members in another order) is read in full by ``JWSHeader``'s rules. Either way the algorithm
/// must be on the use's allow-list and the named key's own, and the signature is checked before the payload is
/// returned.
package struct JWSKeyRing: Sendable {
    /// The keys, by `kid`.
    package let keys: [String: JWSPublicKey]
    /// The header segment ``JWSSigner`` writes for each key, with the key.
    private let ownHeaders: [(segment: [UInt8], key: JWSPublicKey)]
    private let allowed: JWSAlgorithms
    private let maximumLength: Int

    /// A ring of `keys` (each with its `kid`), accepting `allowed` algorithms and tokens of at most `maximumLength`
    /// bytes; `type` is the `typ` this issuer's signer writes.
    package init(keys: [JWSPublicKey], allowed: JWSAlgorithms, maximumLength: Int, type: String?) {
        var byID: [String: JWSPublicKey] = [:]
        var ownHeaders: [(segment: [UInt8], key: JWSPublicKey)] = []
        for key in keys {
            guard let kid = key.keyID else { continue }
            byID[kid] = key
            let segment = JWSSigner.headerSegment(algorithm: key.algorithm, keyID: kid, type: type)
            ownHeaders.append((Array(segment.utf8), key))
        }
        self.keys = byID
        self.ownHeaders = ownHeaders
        self.allowed = allowed
        self.maximumLength = maximumLength
    }

    /// The payload of `token` (its UTF-8 bytes) when a key of this ring signed it.
    package func verify(_ token: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> [UInt8] {
        let parts = try CompactJWS.split(token, maximumLength: maximumLength)
        let headerPart = UnsafeBufferPointer(rebasing: token[..<parts.first])
        let key: JWSPublicKey
        if let own = ownHeaders.first(where: { $0.segment.elementsEqual(headerPart) }) {
            key = own.key
        } else {
            guard let json = Base64URL.decodeCanonical(buffer: headerPart) else {
                throw .malformed("its header is not canonical base64url")
            }
            let header = try JWSHeader(json: json)
            guard allowed.allowed.contains(header.algorithm) else {
                throw .header("its algorithm is not one this use accepts")
            }
            guard let kid = header.keyID, let named = keys[kid] else { throw .key("it names no key of this issuer") }
            guard named.algorithm == header.algorithm else { throw .key("its algorithm is not its key's") }
            key = named
        }
        let signingInput = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(token)[..<parts.second])
        guard key.isValidSignature(parts.signature, for: signingInput) else { throw JOSEError.badSignature }
        return parts.payload
    }
}
