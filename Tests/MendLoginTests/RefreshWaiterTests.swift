import Foundation
import MendCore
import Testing

@testable import MendLogin

/// An issuer whose refresh waits until the test opens the gate.
final class GatedAuthority: SessionAuthority {
    private let gate = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
    let refreshes = Locked(0)
    var isOpen: Bool { gate.withLock { $0.open } }

    /// Refreshes only: these tests never log in.
    func exchange(
        code: String, transaction: AuthorizationTransaction, granted: [String]?, denied: [String]?
    )
        async throws -> Session
    { throw CancellationError() }

    /// Returns once a refresh has begun (yielding; fails instead of spinning forever).
    func waitUntilRefreshing() async throws {
        for _ in 0..<1_000_000 where refreshes.current == 0 { await Task.yield() }
        try #require(refreshes.current > 0, "no refresh began")
    }

    func open() {
        let waiting = gate.withLock { gate in
            gate.open = true
            defer { gate.waiting = [] }
            return gate.waiting
        }
        waiting.forEach { $0.resume() }
    }

    func refresh(_ session: Session) async throws -> Session {
        refreshes.withLock { $0 += 1 }
        await withCheckedContinuation { continuation in
            let open = gate.withLock { gate in
                if !gate.open { gate.waiting.append(continuation) }
                return gate.open
            }
            if open { continuation.resume() }
        }
        var fresh = session
        fresh.accessToken = AccessToken(
            tokenString: "EAAfreshTokenFFFFFFFFFFFFFFFFF", userID: session.accessToken.userID,
            permissions: session.accessToken.permissions, expirationDate: Date().addingTimeInterval(900))
        fresh.refreshToken = "refresh-2"
        fresh.generation += 1
        return fresh
    }

    func checkValidity(of session: Session) async throws {}
    func revoke(_ session: Session) async throws {}
    func endsSession(_ error: MendError) -> Bool { false }
}

@Suite("Waiting for a refresh")
struct RefreshWaiterTests {
    /// A refresh can take long (a re-login up to 300 s; a backend retrying through a bad network ~30 s): a caller that
    /// gives up (its task is cancelled) leaves at once; the refresh goes on, is saved, and serves the others.
    @Test("A cancelled caller stops waiting at once; the refresh completes, is stored and serves the others")
    func cancelledWaiterLeaves() async throws {
        let store = InMemoryTokenStore()
        try await store.write(sampleSession(expiresIn: -10))  // expired: every caller needs a refresh
        let authority = GatedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        let leaving = Task { try await manager.validToken() }
        let staying = Task { try await manager.validToken() }
        try await authority.waitUntilRefreshing()
        leaving.cancel()
        // Without a watchdog a regression would hang here: open the gate after a long while, and say if it had to.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            authority.open()
        }
        let left = await leaving.result
        let leftBeforeTheRefreshEnded = !authority.isOpen
        #expect(throws: CancellationError.self) { try left.get() }
        #expect(leftBeforeTheRefreshEnded)
        authority.open()
        watchdog.cancel()
        #expect(try await staying.value.tokenString == "EAAfreshTokenFFFFFFFFFFFFFFFFF")
        #expect(try await store.read()?.refreshToken == "refresh-2")
        #expect(authority.refreshes.current == 1, "one refresh, shared")
    }

    @Test("When every caller left, the refresh still completes, is stored, and the manager uses it")
    func everyCallerLeft() async throws {
        let store = InMemoryTokenStore()
        try await store.write(sampleSession(expiresIn: -10))
        let authority = GatedAuthority()
        let manager = CredentialsManager(store: store, authority: authority)
        let only = Task { try await manager.validToken() }
        try await authority.waitUntilRefreshing()
        only.cancel()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            authority.open()
        }
        await #expect(throws: CancellationError.self) { try await only.value }
        #expect(!authority.isOpen, "the caller left before the refresh ended")
        authority.open()
        watchdog.cancel()
        // The next call gets the refreshed token without a second refresh.
        #expect(try await manager.validToken().tokenString == "EAAfreshTokenFFFFFFFFFFFFFFFFF")
        #expect(authority.refreshes.current == 1)
        #expect(try await store.read()?.generation == 1)
    }
}
