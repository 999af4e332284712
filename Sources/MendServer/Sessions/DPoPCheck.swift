import Foundation
import HTTPTypes
import MendCore
import MendDPoPCheck
import MendHTTP
import MendJOSE
import MendLogin

/// What a session check sees of a request: its header fields, its method, and the public URL it was sent to — the
/// URL a DPoP proof's `htu` names (`MEND_PUBLIC_URL` with the request's path, else what the trusted proxies
/// forwarded, else the request's own scheme and authority).
struct PresentedRequest: Sendable {
    var headers: HTTPFields
    var method: String
    /// The public URL's text: its base (`scheme://authority`) and the request's path, parsed only when a proof is
    /// checked (most requests carry none, and parsing a URL costs more than the rest of a cached bearer check).
    private let base: String
    private let path: String
    /// The proof this request's replay check already accepted: a request checked twice (an id_token login that
    /// links to the session it presents) is one use of its proof, not a replay.
    let acceptedProof = Locked<String?>(nil)

    /// A request of `method` to `url` with `headers` (tests: a `GET` of `/` on a local server).
    init(headers: HTTPFields, method: String = "GET", url: URL = URL(string: "http://127.0.0.1/")!) {
        self.init(headers: headers, method: method, base: url.absoluteString, path: "")
    }

    /// A request of `method` to the public URL `base` + `path` (`https://api.example.com`, `/v1/session`).
    init(headers: HTTPFields, method: String, base: String, path: String) {
        self.headers = headers
        self.method = method
        self.base = base
        self.path = path
    }

    /// The public URL in a DPoP proof's `htu` form (MendJOSE's `DPoPProof.htu(text:)`): the common URL is taken as it is,
    /// without being parsed.
    var htu: String { DPoPProof.htu(text: base + path) }

    /// The access token of the `Authorization` header (`Bearer` or `DPoP` scheme) and whether its scheme is `DPoP`;
    /// `nil` when there is none or it is malformed.
    var presentedToken: (token: String, isDPoP: Bool)? {
        guard let authorization = Self.authorization(headers) else { return nil }
        if let token = Self.token(authorization, scheme: "bearer ") { return (token, false) }
        if let token = Self.token(authorization, scheme: "dpop ") { return (token, true) }
        return nil
    }

    /// The `Authorization` field's value: the one field's as it is (`HTTPFields`' subscript joins every field of a
    /// name into a new string), several fields joined with ", " as that subscript does.
    static func authorization(_ headers: HTTPFields) -> String? {
        var found: String?
        for field in headers where field.name == .authorization {
            guard found == nil else { return headers[.authorization] }
            found = field.value
        }
        return found
    }

    /// The token after `scheme` (case-insensitive, one space, then the token with surrounding blanks trimmed).
    static func token(_ authorization: String, scheme: StaticString) -> String? {
        let bytes = authorization.utf8
        let length = scheme.utf8CodeUnitCount
        guard bytes.count > length else { return nil }
        var index = bytes.startIndex
        for offset in 0..<length {
            let byte = bytes[index]
            let expected = scheme.utf8Start[offset]
            guard byte | 0x20 == expected || byte == expected else { return nil }
            index = bytes.index(after: index)
        }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while index < bytes.endIndex, isBlank(bytes[index]) { index = bytes.index(after: index) }
        var end = bytes.endIndex
        while end > index, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        guard index < end else { return nil }
        return String(Substring(bytes[index..<end]))
    }
}

/// Stores every instance shares to refuse a DPoP proof used twice (PostgreSQL).
protocol DPoPReplayStore: Sendable {
    /// Records the proof of key `jkt` with `jti`, kept until `expiresAt`; `false` when it was recorded before.
    func firstUse(jkt: String, jti: String, expiresAt: Int64, now: Int64) async throws -> Bool
    /// Drops the proofs whose window has ended.
    func purgeProofs(now: Int64) async throws
}

/// mend-server's side of DPoP (RFC 9449): which requests must carry a proof, the check of one (``DPoPVerifier``), the
/// nonces (``DPoPNonces``) and the replay check — this instance's cache first (``DPoPReplayCache``), then, with
/// several instances (PostgreSQL), the table every instance shares.
struct DPoPCheck: Sendable {
    let mode: ServerConfiguration.DPoPMode
    let requiresNonce: Bool
    let verifier: DPoPVerifier
    let nonces: DPoPNonces
    let seen: DPoPReplayCache
    let shared: (any DPoPReplayStore)?

    /// The check of a server in `mode`; nonces issued under a key derived from the first of `secrets` and accepted
    /// under any (``nonceSecrets(of:)``: the current signing key's, then the other keys', so that every instance
    /// accepts the nonces of every other, whichever step of a key rotation each is on).
    init(
        mode: ServerConfiguration.DPoPMode, requiresNonce: Bool, secrets: [Data],
        shared: (any DPoPReplayStore)?,
        verifier: DPoPVerifier = DPoPVerifier(maximumAge: 60, skew: 60, keys: DPoPKeyCache())
    ) {
        self.mode = mode
        self.requiresNonce = requiresNonce
        self.verifier = verifier
        self.nonces = DPoPNonces(secrets: secrets)
        self.seen = DPoPReplayCache()
        self.shared = shared
    }

    /// The nonce secrets of a deployment with `keys`: the current key's (what it issues under, as before the keys
    /// had states: the first key's), then every other key's, next and retired (accepted).
    static func nonceSecrets(of keys: [SigningKeyConfiguration]) -> [Data] {
        var ordered = keys
        if let current = keys.firstIndex(where: { $0.state == .current }) {
            ordered.insert(ordered.remove(at: current), at: 0)
        }
        return ordered.map { Data($0.privateKey.value.utf8) }
    }

    /// The key (its RFC 7638 thumbprint) that the proof of a token request — a login, a refresh, a logout with the
    /// refresh token alone — proves; `nil` when the request carries none and none is required (`mode` is not
    /// `required`, or the session is not bound: the caller decides that). Under `required`, a request that opens a
    /// session (a login) without a proof is refused here; one that continues a session (a refresh) is left to the
    /// session's rules: a bound one refuses it, a bearer one ends.
    func tokenRequestKey(_ request: PresentedRequest, now: Int64, opensSession: Bool = true) async throws -> String? {
        guard mode != .off else { return nil }
        guard let proof = try Self.proofHeader(request.headers) else {
            if mode == .required, opensSession {
                throw refusal(.invalid("this server binds every session: the request must carry a DPoP proof"), now)
            }
            return nil
        }
        return try await verify(proof, request, accessToken: nil, now: now)
    }

    /// Checks that `request`, presenting `accessToken` bound to `jkt`, carries a valid proof of that key; `hash` is
    /// the token's `ath` when it is known already (the verified-token cache keeps it).
    func requireProof(
        _ request: PresentedRequest, accessToken: String, hash: String? = nil, boundTo jkt: String, now: Int64
    ) async throws {
        guard let proof = try Self.proofHeader(request.headers) else {
            throw refusal(.invalid("the access token is bound to a key: the request must carry a DPoP proof"), now)
        }
        let key = try await verify(proof, request, accessToken: accessToken, hash: hash, now: now)
        guard ConstantTime.equal(key, jkt) else {
            throw refusal(.invalid("the proof's key is not the one the access token is bound to"), now)
        }
    }

    /// Refuses a token request for `session` whose proof did not prove the key it is bound to (RFC 9449 §5: a bound
    /// refresh token is used with a proof of its key). A bearer session under `MEND_DPOP=required` is the caller's to
    /// end (``endsUnbound(_:)``): no proof can save it.
    func requireKey(of session: SessionRecord, presented: String?) throws {
        guard mode != .off, let bound = session.proofKey else { return }
        guard let presented, ConstantTime.equal(presented, bound) else {
            throw ServerFailure.dpop(
                .invalid(
                    presented == nil
                        ? "the session is bound to a key: the request must carry a DPoP proof"
                        : "the proof's key is not the one the session is bound to"), nonce: nil)
        }
    }

    /// Whether `session` is a bearer session that this server no longer lets live (`MEND_DPOP=required`, set after it
    /// began): its refresh ends it with session/10, so that its client signs in again — with a key — instead of
    /// retrying a refusal it cannot answer.
    func endsUnbound(_ session: SessionRecord) -> Bool { mode == .required && session.proofKey == nil }

    /// The nonce answers carry when nonces are required.
    func currentNonce(now: Int64) -> String? { requiresNonce ? nonces.current(now: now) : nil }

    /// The one `DPoP` header of a request; a refusal when there are several.
    static func proofHeader(_ headers: HTTPFields) throws -> String? {
        let values = headers[values: .dpop]
        guard values.count <= 1 else {
            throw ServerFailure.dpop(.invalid("the request carries more than one DPoP header"), nonce: nil)
        }
        return values.first
    }

    private func verify(
        _ proof: String, _ request: PresentedRequest, accessToken: String?, hash: String? = nil, now: Int64
    ) async throws
        -> String
    {
        let verified: DPoPVerifier.Verified
        do {
            verified = try verifier.verify(
                proof, method: request.method, htu: request.htu, accessToken: accessToken, accessTokenHash: hash,
                now: now,
                nonceIsValid: { nonces.isValid($0, now: now) }, requiresNonce: requiresNonce)
        } catch {
            throw refusal(error, now)
        }
        if request.acceptedProof.withLock({ $0 == proof }) { return verified.thumbprint }
        // Kept while a proof with this jti could pass: its iat's window, or its nonce's (two steps from now).
        var expiresAt = verified.issuedAt + verifier.maximumAge + 2 * verifier.skew
        if verified.hasNonce { expiresAt = max(expiresAt, now + nonces.freshness) }
        guard seen.firstUse(thumbprint: verified.thumbprint, jti: verified.jti, expiresAt: expiresAt, now: now) else {
            throw refusal(.invalid("the proof was used before (its jti is not new)"), now)
        }
        if let shared {
            let first: Bool
            do {
                first = try await shared.firstUse(
                    jkt: verified.thumbprint, jti: verified.jti, expiresAt: expiresAt, now: now)
            } catch {
                throw ServerFailure.internalFailure("The DPoP replay check failed: \(type(of: error)).")
            }
            guard first else { throw refusal(.invalid("the proof was used before (its jti is not new)"), now) }
        }
        request.acceptedProof.withLock { $0 = proof }
        return verified.thumbprint
    }

    private func refusal(_ refusal: DPoPVerifier.Refusal, _ now: Int64) -> ServerFailure {
        ServerFailure.dpop(refusal, nonce: refusal == .nonceRequired || requiresNonce ? nonces.current(now: now) : nil)
    }
}

extension ServerFailure {
    /// 401 for a DPoP proof refused: session/20 with `WWW-Authenticate: DPoP error="invalid_dpop_proof"`, or session/21
    /// with `error="use_dpop_nonce"` and the nonce to use (RFC 9449 §7.1, §9); `algs` names what the server accepts.
    static func dpop(_ refusal: DPoPVerifier.Refusal, nonce: String?) -> ServerFailure {
        var headers = HTTPFields()
        let code: MendError.Code
        let message: String
        switch refusal {
        case .invalid(let reason):
            code = .Session.dpopProofInvalid
            message = "The request's DPoP proof is not valid: \(reason)."
            headers[.wwwAuthenticate] =
                #"DPoP error="invalid_dpop_proof", error_description="\#(reason.replacingOccurrences(of: "\"", with: "'"))", algs="ES256""#
        case .nonceRequired:
            code = .Session.dpopNonceRequired
            message = "The request's DPoP proof must carry the server's nonce (DPoP-Nonce); send it again with it."
            headers[.wwwAuthenticate] =
                #"DPoP error="use_dpop_nonce", error_description="a nonce is required", algs="ES256""#
        }
        if let nonce { headers[.dpopNonce] = nonce }
        return ServerFailure(MendError(code: code, developerMessage: message, catalog: .server), headers: headers)
    }
}
