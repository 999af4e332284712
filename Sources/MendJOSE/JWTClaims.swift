package import MendCore

/// A JWT's claims (RFC 7519 §4), read one way for every use: registered claims of their registered types only — a
/// time is a JSON number (never a string), `sub` and `iss` non-empty strings, `aud` a string or an array of strings.
package struct JWTClaims: Sendable {
    /// Every member.
    package let members: [String: JSONValue]

    package init(_ members: [String: JSONValue]) { self.members = members }

    /// A member, any type.
    package subscript(name: String) -> JSONValue? { members[name] }

    /// A string claim that must be present and non-empty.
    package func requiredString(_ name: String) throws(JOSEError) -> String {
        guard case .string(let text)? = members[name] else { throw .claim("its \(name) is missing or not a string") }
        guard !text.isEmpty else { throw .claim("its \(name) is empty") }
        return text
    }

    /// A string claim that may be absent (`nil`), and is a string when present.
    package func optionalString(_ name: String) throws(JOSEError) -> String? {
        switch members[name] {
        case nil: return nil
        case .string(let text)?: return text
        default: throw .claim("its \(name) is not a string")
        }
    }

    /// `aud` (RFC 7519 §4.1.3): a string, or a non-empty array of strings.
    package func audience() throws(JOSEError) -> [String] {
        switch members["aud"] {
        case .string(let text)?: return [text]
        case .array(let list)?:
            var audience: [String] = []
            for case .string(let text) in list { audience.append(text) }
            guard !audience.isEmpty, audience.count == list.count else {
                throw .claim("its aud is not a list of strings")
            }
            return audience
        default:
            throw .claim("its aud is missing or not a string")
        }
    }

    /// `exp`, `nbf` and `iat`.
    package func times() throws(JOSEError) -> JWTTimes {
        JWTTimes(
            expiresAt: try time("exp"), notBefore: try time("nbf"), issuedAt: try time("iat"))
    }

    /// A NumericDate claim (RFC 7519 §2): a JSON number when present.
    private func time(_ name: String) throws(JOSEError) -> Double? {
        switch members[name] {
        case nil: return nil
        case .int(let value)?: return Double(value)
        case .double(let value)?: return value
        default: throw .claim("its \(name) is not a number")
        }
    }
}

/// A JWT's times, in seconds since 1970.
package struct JWTTimes: Sendable, Hashable {
    package var expiresAt: Double?
    package var notBefore: Double?
    package var issuedAt: Double?

    package init(expiresAt: Double?, notBefore: Double?, issuedAt: Double?) {
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
    }
}

/// The one place where a JWT's times are checked, with their skew (RFC 7519 §4.1.4–4.1.6).
package struct JWTTimeRule: Sendable, Hashable {
    /// How far two clocks may disagree, in seconds: a token is accepted from `nbf - skew`, when issued no later than
    /// `now + skew`, and (unless ``expiryLeeway`` says otherwise) until `exp + skew`.
    package var skew: Double
    /// How long after `exp` a token is still accepted: `skew` unless set (an issuer checking its own tokens may hold
    /// them to the second).
    package var expiryLeeway: Double
    /// Whether `exp` must be present.
    package var requiresExpiry = true
    /// Whether `iat` must be present.
    package var requiresIssuedAt = true
    /// The oldest `iat` accepted, in seconds before now (plus `skew`); `nil`: any.
    package var maximumAge: Double?
    /// The longest `exp - iat` accepted; `nil`: any.
    package var maximumLifetime: Double?

    package init(
        skew: Double, expiryLeeway: Double? = nil, requiresExpiry: Bool = true, requiresIssuedAt: Bool = true,
        maximumAge: Double? = nil,
        maximumLifetime: Double? = nil
    ) {
        self.skew = skew
        self.expiryLeeway = expiryLeeway ?? skew
        self.requiresExpiry = requiresExpiry
        self.requiresIssuedAt = requiresIssuedAt
        self.maximumAge = maximumAge
        self.maximumLifetime = maximumLifetime
    }

    /// Checks `times` at `now` (seconds since 1970). `checkExpiry: false` skips `exp` alone (revocation accepts an
    /// expired token: it still names its session).
    package func check(_ times: JWTTimes, now: Double, checkExpiry: Bool = true) throws(JOSEError) {
        if requiresExpiry, times.expiresAt == nil { throw .claim("it has no expiry (exp)") }
        if requiresIssuedAt, times.issuedAt == nil { throw .claim("it has no issue time (iat)") }
        if checkExpiry, let expiresAt = times.expiresAt, isExpired(expiresAt: expiresAt, now: now) {
            throw JOSEError(.expired, "it has expired")
        }
        if let notBefore = times.notBefore, notBefore - skew > now {
            throw JOSEError(.notYetValid, "it is not valid yet (nbf)")
        }
        if let issuedAt = times.issuedAt {
            guard issuedAt - skew <= now else { throw JOSEError(.notYetValid, "it was issued in the future (iat)") }
            if let maximumAge, now - issuedAt > maximumAge + skew {
                throw JOSEError(.tooOld, "it was issued too long ago (iat)")
            }
            if let maximumLifetime, let expiresAt = times.expiresAt, expiresAt - issuedAt > maximumLifetime {
                throw JOSEError(.tooOld, "it is valid for longer than this use allows")
            }
        }
    }

    /// Whether a token of this `exp` has expired at `now`: the one expiry comparison (a verified-token cache's hit
    /// asks it too).
    @inlinable
    package func isExpired(expiresAt: Double, now: Double) -> Bool { now >= expiresAt + expiryLeeway }
}
