public import Foundation
public import HTTPTypes
package import MendCore

/// Proves that a request's sender holds the key its credential is bound to (DPoP, RFC 9449). MendLogin makes one for a
/// DPoP-bound session; MendHTTP never signs anything itself.
///
/// The pipeline asks for a new proof on every attempt where it hands the request to the transport — the first, each
/// retry, the replay after a refresh, the one retry a `use_dpop_nonce` challenge allows — so no two attempts carry the
/// same proof, and each carries the latest nonce its server gave.
public protocol DPoPProver: Sendable {
    /// The `DPoP` header of a request of `method` to `url` presenting `accessToken` (`nil` at a token endpoint, where
    /// the proof binds what is issued rather than proves a token it presents); `nonce` is the latest
    /// `DPoP-Nonce` the URL's origin answered, if it gave one; `issuedAt` is the time on the origin's clock as far as
    /// the client knows it (its own, moved by the offset learned when a proof was refused for its time).
    func proof(method: String, url: URL, accessToken: String?, nonce: String?, issuedAt: Date) async throws -> String
}

/// What a client knows of each origin (scheme and authority) it sends proofs to: the `DPoP-Nonce` it answered last
/// (RFC 9449 §8: a nonce is per server) and how far its clock is from the client's, learned when it refused a proof
/// for its time. Kept by a client's authorization step.
package final class DPoPNonceBook: Sendable {
    private let nonces = Locked<[String: String]>([:])
    private let offsets = Locked<[String: TimeInterval]>([:])

    package init() {}

    /// The most origins a book keeps.
    static let capacity = 1024

    /// The latest nonce of `origin`.
    package func nonce(for origin: String) -> String? { nonces.withLock { $0[origin] } }

    /// Keeps `nonce` as `origin`'s latest (nothing when `nil` or empty).
    package func record(_ nonce: String?, for origin: String) {
        guard let nonce, !nonce.isEmpty, nonce.utf8.count <= 1024 else { return }
        nonces.withLock { nonces in
            // Bounded: a process that talked to a thousand servers starts over (each answers a challenge again).
            if nonces.count >= Self.capacity, nonces[origin] == nil { nonces.removeAll() }
            nonces[origin] = nonce
        }
    }

    /// How far `origin`'s clock is ahead of the client's (behind: negative).
    package func offset(for origin: String) -> TimeInterval { offsets.withLock { $0[origin] ?? 0 } }

    /// Learns `origin`'s clock from the `Date` of an answer received at `now`; `true` when that moves the offset by
    /// more than five seconds (a `Date` has a one-second resolution, and the answer took some time to come).
    package func learnClock(from date: String?, receivedAt now: Date, for origin: String) -> Bool {
        guard let date, let serverTime = RetryAfter.httpDate(date, now: now) else { return false }
        let offset = serverTime.timeIntervalSince(now)
        return offsets.withLock { offsets in
            guard abs(offset - (offsets[origin] ?? 0)) > 5 else { return false }
            if offsets.count >= Self.capacity, offsets[origin] == nil { offsets.removeAll() }
            offsets[origin] = abs(offset) > 5 ? offset : nil
            return true
        }
    }

    /// A request's origin: its scheme and authority, lowercased.
    package static func origin(of head: HTTPRequest) -> String {
        "\(head.scheme ?? "https")://\(head.authority ?? "")".lowercased()
    }
}

/// A request's DPoP binding, its one field for it (``APIRequest/dpop``): the prover that signs a proof for each attempt,
/// the token the proofs name (`ath`), and the book of nonces and clocks the proofs read and the answers fill.
///
/// The authorization step sets it for a bound credential; a token endpoint's request (a login, a refresh, a
/// revocation), which presents no access token, carries one from the start.
package struct DPoPBinding: Sendable {
    /// Signs each attempt's proof.
    package let prover: any DPoPProver
    /// The token the request presents; `nil` for a proof without one (a token endpoint's).
    package let accessToken: String?
    /// The nonces and clock offsets of the origins the proofs go to.
    package let nonces: DPoPNonceBook

    /// A binding whose proofs are signed by `prover`, name `accessToken` (none at a token endpoint) and read `nonces`.
    package init(prover: any DPoPProver, accessToken: String? = nil, nonces: DPoPNonceBook) {
        self.prover = prover
        self.accessToken = accessToken
        self.nonces = nonces
    }

    /// The `DPoP` header of one attempt of `head`, made at `now` on the client's clock.
    func proof(for head: HTTPRequest, now: Date) async throws -> String {
        let url = URL(string: "\(head.scheme ?? "https")://\(head.authority ?? "")\(head.path ?? "/")")
        guard let url else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The request's URL cannot carry a DPoP proof.",
                catalog: .core)
        }
        let origin = DPoPNonceBook.origin(of: head)
        return try await prover.proof(
            method: head.method.rawValue, url: url, accessToken: accessToken, nonce: nonces.nonce(for: origin),
            issuedAt: now.addingTimeInterval(nonces.offset(for: origin)))
    }

    /// Keeps the nonce an answer of `head`'s origin gave.
    func record(_ nonce: String?, of head: HTTPRequest) {
        nonces.record(nonce, for: DPoPNonceBook.origin(of: head))
    }

    /// Whether a request of `head` proved with this binding may be sent once more after `error`, and what for: the
    /// server asked for its nonce (the answer gave one), or it refused the proof for its time and its `Date` moved
    /// what the client knows of its clock (learned here, at `now`). ``RetryStep`` asks, and resends each at most once.
    func resend(after error: MendError, of head: HTTPRequest, now: Date) -> DPoPResend? {
        if DPoPResend.isNonceChallenge(error) { return .nonce }
        guard DPoPResend.refusesProof(error),
            nonces.learnClock(
                from: error.response?.headers["date"], receivedAt: now, for: DPoPNonceBook.origin(of: head))
        else { return nil }
        return .clock
    }
}

/// Why a DPoP-proved request is sent once more: its server's answer can be met by a new proof (RFC 9449 §8, §9).
package enum DPoPResend: Sendable, Hashable {
    /// The server asked for its nonce and gave it (`use_dpop_nonce`).
    case nonce
    /// The server refused the proof, and its `Date` showed the client's clock off by more than five seconds.
    case clock

    /// Whether `error` is a DPoP nonce challenge that gave a nonce (RFC 9449 §8, §9): a 401 whose
    /// `WWW-Authenticate` says `error="use_dpop_nonce"`, or an authorization server's 400 `{"error":
    /// "use_dpop_nonce"}`.
    package static func isNonceChallenge(_ error: MendError) -> Bool {
        guard error.response?.headers["dpop-nonce"] != nil else { return false }
        return dpopError(of: error) == "use_dpop_nonce"
    }

    /// Whether `error` refuses the request's DPoP proof (`invalid_dpop_proof`, RFC 9449 §7.1, §5).
    static func refusesProof(_ error: MendError) -> Bool { dpopError(of: error) == "invalid_dpop_proof" }

    /// The DPoP error code of a 401's `WWW-Authenticate: DPoP error="…"`, or of an authorization server's 400 body.
    static func dpopError(of error: MendError) -> String? {
        guard let response = error.response else { return nil }
        if response.status == 401, let challenge = response.headers["www-authenticate"] {
            for code in ["use_dpop_nonce", "invalid_dpop_proof"] where challenge.contains("error=\"\(code)\"") {
                return code
            }
            return nil
        }
        return response.status == 400 ? response.json?["error"]?.stringValue : nil
    }
}

extension HTTPField.Name {
    /// `DPoP`: the proof of a request (RFC 9449 §4.1).
    package static let dpop = Self("DPoP")!
    /// `DPoP-Nonce`: the nonce a server asks proofs to carry (RFC 9449 §8).
    package static let dpopNonce = Self("DPoP-Nonce")!
}

/// Proves that a request's sender holds the key its credential is bound to: renamed ``DPoPProver`` (every DPoP type
/// has the standard's word for its prefix).
@available(*, deprecated, renamed: "DPoPProver")
public typealias RequestProver = DPoPProver
