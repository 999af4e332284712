import MendCore

/// The sessions that ended recently, in memory: what lets `GET /v1/session` (and every bearer check) refuse a revoked
/// session without reading the database on each request.
///
/// It holds each ended session's id with its stored reason and detail (so a refused token still learns *why*,
/// session/10–17), only while an access token of that session could still be valid: revocations older than the
/// access-token lifetime plus a margin are dropped. Access tokens are only issued for active sessions and never
/// outlive their session, so a session absent from a *current* view is active.
///
/// Whether the view is current:
/// - **SQLite** (one instance per file): every revocation goes through this process and is recorded before its
///   request answers; the view is loaded from the database at start, and is always current.
/// - **PostgreSQL** (several instances): revocations of other instances arrive by `LISTEN/NOTIFY` (see
///   ``RevocationFeed``). The view is current only until a bounded time after the last heartbeat the feed received
///   back through its `LISTEN` connection; PostgreSQL delivers notifications in commit order, so a revocation
///   committed before a heartbeat was sent has been recorded when that heartbeat arrives. While the feed is down, or
///   its heartbeats are late, ``status(of:)`` answers ``Status/unknown`` and the caller reads the database: never a
///   stale allow.
final class RevocationView: Sendable {
    /// An ended session: the stored `revoked_reason` and `revoked_detail`, and when it ended (unix seconds).
    struct Ending: Sendable, Equatable {
        var reason: String?
        var detail: String?
        var endedAt: Int64
    }

    /// What the view knows about a session.
    enum Status: Sendable, Equatable {
        /// The session ended (within the access-token lifetime).
        case ended(Ending)
        /// The view is current and the session has not ended.
        case active
        /// The view is not current: read the database.
        case unknown
    }

    /// How far the view may be trusted.
    enum Freshness: Sendable, Equatable {
        /// Every revocation passes through this process (SQLite).
        case always
        /// Current until this instant (PostgreSQL: the last heartbeat's send time plus the staleness bound).
        case until(ContinuousClock.Instant)
        /// Not current: the feed is down or has not caught up yet.
        case stale
    }

    private struct State {
        var endings: [String: Ending] = [:]
        var freshness: Freshness
    }

    private let state: Locked<State>
    /// How long an ending is kept: the access-token lifetime plus a margin for clock skew between instances.
    let retention: Int64

    /// A view that keeps endings for `retention` seconds, starting `freshness`.
    init(retention: Int64, freshness: Freshness) {
        self.retention = retention
        self.state = Locked(State(freshness: freshness))
    }

    /// Whether `sessionID` ended, whether it is active, or whether the caller must read the database.
    func status(of sessionID: String, at instant: ContinuousClock.Instant = .now) -> Status {
        state.withLock { state in
            switch state.freshness {
            case .stale: return .unknown
            case .until(let deadline) where instant >= deadline: return .unknown
            case .always, .until: return state.endings[sessionID].map(Status.ended) ?? .active
            }
        }
    }

    /// Records an ending (a session ended in this process, or one a notification or catch-up read reported). A
    /// session that ended before keeps its first ending, as the database does.
    func record(sessionID: String, _ ending: Ending) {
        state.withLock { state in
            if state.endings[sessionID] == nil { state.endings[sessionID] = ending }
        }
    }

    /// Records several endings (a catch-up read), then drops the ones older than the retention.
    func record(_ endings: [(sessionID: String, ending: Ending)], now: Int64) {
        state.withLock { state in
            for (sessionID, ending) in endings where state.endings[sessionID] == nil {
                state.endings[sessionID] = ending
            }
            let oldest = now - retention
            state.endings = state.endings.filter { $0.value.endedAt >= oldest }
        }
    }

    /// Marks the view current until `deadline` (never moving an existing deadline back).
    func markCurrent(until deadline: ContinuousClock.Instant) {
        state.withLock { state in
            switch state.freshness {
            case .always: return
            case .until(let existing) where existing >= deadline: return
            case .until, .stale: state.freshness = .until(deadline)
            }
        }
    }

    /// Marks the view not current: checks read the database until the feed has caught up again.
    func markStale() {
        state.withLock { state in
            if state.freshness != .always { state.freshness = .stale }
        }
    }

    /// The view's freshness (for tests and metrics).
    var freshness: Freshness { state.withLock { $0.freshness } }

    /// How many endings the view holds.
    var count: Int { state.withLock { $0.endings.count } }
}
