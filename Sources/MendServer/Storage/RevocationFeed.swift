import Foundation
import Logging
import MendCore
import MendHTTP
import NIOCore
import NIOPosix
import PostgresKit
import PostgresNIO

/// Keeps a ``RevocationView`` current.
///
/// - On **SQLite** the view is always current (every revocation passes through the one process); the feed only reads
///   the `mend_revocations` log every ``catchUpInterval`` (an operator's SQL, and dropping old endings).
/// - On **PostgreSQL** it holds one dedicated connection outside the pool that `LISTEN`s on ``channel``, where the
///   `mend_sessions` trigger notifies every revocation, on any instance, at commit. After `LISTEN` it reads the log
///   (the last retention period), then sends itself a heartbeat on the same channel every ``heartbeatInterval``
///   (through the pool: the `LISTEN` connection only listens); each heartbeat that comes back marks the view current
///   until its send time plus ``stalenessBound``, and a connection that stops bringing them back for
///   ``silenceLimit`` is closed and opened again.
///   Notifications arrive in commit order, so a revocation committed before a heartbeat was sent is in the view when
///   that heartbeat arrives: a revocation is refused on every instance within ``stalenessBound`` of its commit, or
///   the instance reads the database. A lost connection marks the view stale at once and reconnects with backoff;
///   the log is read again every ``catchUpInterval`` so that anything missed heals.
final class RevocationFeed: Sendable {
    /// The `LISTEN/NOTIFY` channel (also written by migration 4's trigger: never rename it).
    static let channel = "mend_revocations"
    /// How often the PostgreSQL feed sends itself a heartbeat.
    static let heartbeatInterval: Duration = .milliseconds(200)
    /// How long after a heartbeat was sent the view counts as current once it came back: the documented bound on
    /// how long another instance may still accept a revoked session (under 1 s).
    static let stalenessBound: Duration = .milliseconds(750)
    /// How long the `LISTEN` connection may bring no heartbeat back before it is taken for dead and replaced.
    static let silenceLimit: Duration = .seconds(5)
    /// How often the log is read again.
    static let catchUpInterval: Duration = .seconds(10)
    /// How far back each periodic read looks before the previous one (clock skew between instances, commit delay).
    static let catchUpOverlap: Int64 = 60

    enum Source: Sendable {
        case inProcess
        case postgres(PostgresConnection.Configuration)

        var isInProcess: Bool {
            if case .inProcess = self { true } else { false }
        }
    }

    let view: RevocationView
    /// The revocation log (and, on PostgreSQL, the connection its heartbeats are sent on).
    let store: SQLSessionStore
    let source: Source
    let logger: Logger
    /// The server's clock: the times of the log reads (its polling waits real time, on purpose).
    let clock: PipelineClock
    /// This instance's heartbeat prefix on the shared channel.
    private let heartbeatPrefix = "heartbeat:\(OpaqueToken.alphanumeric(12)):"
    /// The send times of the heartbeats in flight, by sequence number.
    private let heartbeats = Locked<
        (next: Int, sent: [Int: ContinuousClock.Instant], lastBack: ContinuousClock.Instant)
    >(
        (0, [:], .now))
    /// The server process id of the `LISTEN` connection while it is up (tests end it to prove the fallback).
    let listenerProcessID = Locked<Int?>(nil)
    /// The app-clock time of the last log read.
    private let lastCatchUp = Locked<Int64?>(nil)

    init(
        view: RevocationView, store: SQLSessionStore, source: Source, logger: Logger, clock: PipelineClock
    ) {
        self.view = view
        self.store = store
        self.source = source
        self.logger = logger
        self.clock = clock
    }

    /// Reads the log: the whole retention period the first time (`full`), then from the previous read on, with an
    /// overlap. Old endings are dropped from the view.
    func catchUp(full: Bool) async throws {
        let current = Int64(clock.now().timeIntervalSince1970)
        var since = current - view.retention
        if !full, let previous = lastCatchUp.withLock({ $0 }) { since = max(since, previous - Self.catchUpOverlap) }
        let endings = try await store.revocations(since: since)
        view.record(endings, now: current)
        lastCatchUp.withLock { $0 = current }
    }

    /// Runs until cancelled.
    func run() async {
        switch source {
        case .inProcess:
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: Self.catchUpInterval)
                    try await catchUp(full: false)
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("reading the revocation log failed", metadata: ["error": "\(error)"])
                }
            }
        case .postgres(let configuration):
            var backoff: Duration = .milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await listen(configuration: configuration) { backoff = .milliseconds(100) }
                } catch is CancellationError {
                    break
                } catch {
                    if Task.isCancelled { break }
                    logger.warning(
                        "the revocation feed's LISTEN connection failed: session checks read the database until it is back",
                        metadata: ["error": "\(String(reflecting: error).prefix(300))"])
                }
                view.markStale()
                listenerProcessID.withLock { $0 = nil }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
            view.markStale()
        }
    }

    /// One `LISTEN` connection's life: catch up, then heartbeats and periodic reads, until it fails.
    private func listen(
        configuration: PostgresConnection.Configuration, onCaughtUp: () -> Void
    ) async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 0, logger: logger)
        heartbeats.withLock {
            $0.sent = [:]
            $0.lastBack = .now
        }
        do {
            try await withTaskCancellationHandler {
                try await listen(on: connection, onCaughtUp: onCaughtUp)
            } onCancel: {
                let closing: EventLoopFuture<Void> = connection.close()
                _ = closing
            }
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private func listen(on connection: PostgresConnection, onCaughtUp: () -> Void) async throws {
        let pid = try await connection.query("SELECT pg_backend_pid() AS pid", logger: logger)
            .collect().first?.decode(Int.self)
        listenerProcessID.withLock { $0 = pid }
        try await connection.listen(on: Self.channel) { notifications in
            try await catchUp(full: true)
            onCaughtUp()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.sendHeartbeats() }
                group.addTask {
                    for try await notification in notifications { self.handle(notification.payload) }
                    throw FeedEnded()
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.catchUpInterval)
                        try await self.catchUp(full: false)
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private struct FeedEnded: Error, CustomStringConvertible {
        var description: String { "the LISTEN connection closed" }
    }

    /// Sends a heartbeat every ``heartbeatInterval`` through the pool; throws once none came back for
    /// ``silenceLimit`` (the `LISTEN` connection is then replaced).
    private func sendHeartbeats() async throws {
        while true {
            // The send time is taken before the statement, so the heartbeat commits after it.
            let (number, silence) = heartbeats.withLock { state in
                let number = state.next
                state.next += 1
                let now = ContinuousClock.now
                state.sent[number] = now
                if state.sent.count > 1000 { state.sent = state.sent.filter { $0.key > number - 100 } }
                return (number, now - state.lastBack)
            }
            guard silence < Self.silenceLimit else { throw SilentConnection() }
            let payload = heartbeatPrefix + String(number)
            do {
                try await store.sql.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: payload))").run()
            } catch {
                // The pool could not send it: the view goes stale by itself; the connection may be fine.
                logger.debug("a revocation-feed heartbeat could not be sent", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: Self.heartbeatInterval)
        }
    }

    private struct SilentConnection: Error, CustomStringConvertible {
        var description: String { "the LISTEN connection brought no heartbeat back" }
    }

    /// A notification: a revocation (JSON from the trigger), this instance's heartbeat, or another instance's.
    func handle(_ payload: String) {
        if payload.hasPrefix(heartbeatPrefix) {
            guard let number = Int(payload.dropFirst(heartbeatPrefix.count)) else { return }
            let sentAt = heartbeats.withLock { state -> ContinuousClock.Instant? in
                let sentAt = state.sent[number]
                state.sent = state.sent.filter { $0.key > number }
                state.lastBack = .now
                return sentAt
            }
            if let sentAt { view.markCurrent(until: sentAt + Self.stalenessBound) }
            return
        }
        guard payload.hasPrefix("{"),
            let notified = try? JSONDecoder().decode(NotifiedRevocation.self, from: Data(payload.utf8))
        else { return }
        view.record(
            sessionID: notified.sessionID,
            .init(reason: notified.reason, detail: notified.detail, endedAt: notified.revokedAt))
    }

    /// The trigger's notification.
    private struct NotifiedRevocation: Decodable {
        var sessionID: String
        var reason: String?
        var detail: String?
        var revokedAt: Int64

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", reason, detail, revokedAt = "revoked_at"
        }
    }
}
