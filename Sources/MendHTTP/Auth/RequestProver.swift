public import Foundation
public import HTTPTypes
import MendCore

/// Proves that a request's sender holds the key its credential is bound to (DPoP, RFC 9449). MendLogin makes one for a
/// DPoP-bound session; MendHTTP never signs anything itself.
///
/// The pipeline asks for a new proof on every attempt where it hands the request to the transport — the first, each
/// retry, the replay after a refresh, the one retry a `use_dpop_nonce` challenge allows — so no two attempts carry the
/// same proof, and each carries the latest nonce its server gave.
public protocol RequestProver: Sendable {
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

    /// The process's book, keyed by origin: what every client's authorization step keeps.
    package static let shared = DPoPNonceBook()

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

/// What the authorization step attaches to a request whose credential is DPoP-bound: the exchange signs a proof with
/// it for each attempt, and records the nonces the answers carry.
package struct ProofBinding: Sendable {
    let prover: any RequestProver
    /// The token the request presents; `nil` for a proof without one (a token endpoint's).
    let accessToken: String?
    let nonces: DPoPNonceBook

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
}

extension HTTPField.Name {
    /// `DPoP`: the proof of a request (RFC 9449 §4.1).
    package static let dpop = Self("DPoP")!
    /// `DPoP-Nonce`: the nonce a server asks proofs to carry (RFC 9449 §8).
    package static let dpopNonce = Self("DPoP-Nonce")!
}
