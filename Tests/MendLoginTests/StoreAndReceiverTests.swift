import Crypto
import Foundation
import MendClientTesting
import MendCore
import MendLogin
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func sampleSession(
    token: String = "EAAsampleTokenAAAAAAAAAAAAAAA1", generation: Int = 0, expiresIn: TimeInterval = 3600
) -> Session {
    Session(
        issuer: .backend,
        accessToken: AccessToken(
            tokenString: token, userID: "u1", permissions: ["email"],
            expirationDate: Date().addingTimeInterval(expiresIn)),
        refreshToken: "refresh-\(token)", user: .init(id: "u1", name: "Ada"), generation: generation)
}

@Suite("Token stores")
struct TokenStoreTests {
    @Test("The file store round-trips a session in a 0600 file, atomically replaced")
    func fileStore() async throws {
        let directory = temporaryDirectory()
        let store = FileTokenStore(url: directory.appendingPathComponent("state/session.json"))
        #expect(try await store.read() == nil)
        let session = sampleSession()
        try await store.write(session)
        #expect(try await store.read() == session)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try await store.write(sampleSession(token: "EAAsecondTokenBBBBBBBBBBBBBBB2", generation: 1))
        #expect(try await store.read()?.generation == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.url.deletingLastPathComponent().path)
        #expect(leftovers.allSatisfy { !$0.hasSuffix(".tmp") })
        try await store.delete()
        #expect(try await store.read() == nil)
        try await store.delete()
    }

    @Test("Encrypted with AES-GCM: the file holds no token; the wrong key is 'unavailable', not 'logged out'")
    func encrypted() async throws {
        let url = temporaryDirectory().appendingPathComponent("session.json")
        let key = SymmetricKey(size: .bits256)
        let session = sampleSession()
        try await FileTokenStore(url: url, encryptionKey: key).write(session)
        let raw = try Data(contentsOf: url)
        #expect(raw.range(of: Data("EAAsampleToken".utf8)) == nil)
        #expect(try await FileTokenStore(url: url, encryptionKey: key).read() == session)
        let error = try await #require(throws: MendError.self) {
            try await FileTokenStore(url: url, encryptionKey: SymmetricKey(size: .bits256)).read()
        }
        #expect(error.code == .Login.tokenStoreUnavailable)
        #expect(error.category == .transient)
    }

    @Test("A corrupt file is 'unavailable', never 'logged out'")
    func corrupt() async throws {
        let url = temporaryDirectory().appendingPathComponent("session.json")
        try Data("{\"issuer\":\"backend\",\"accessTo".utf8).write(to: url)
        let error = try await #require(throws: MendError.self) { try await FileTokenStore(url: url).read() }
        #expect(error.code == .Login.tokenStoreUnavailable)
    }

    @Test("The lock serializes writers within and across processes")
    func lock() async throws {
        let store = FileTokenStore(url: temporaryDirectory().appendingPathComponent("session.json"))
        let counter = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await store.withExclusiveAccess {
                        let inside = await counter.enter()
                        #expect(inside == 1)
                        await Task.yield()
                        await counter.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    actor Counter {
        var current = 0
        func enter() -> Int {
            current += 1
            return current
        }
        func leave() { current -= 1 }
    }
}

@Suite("Loopback redirect receiver (RFC 8252)")
struct LoopbackReceiverTests {
    @Test("It binds 127.0.0.1 at a system-chosen port, ignores other paths and states, and takes one redirect")
    func oneShot() async throws {
        let receiver = try LoopbackRedirectReceiver(path: "/callback")
        #expect(receiver.redirectURI.host == "127.0.0.1")
        #expect(receiver.redirectURI.port != nil && receiver.redirectURI.port != 0)
        let base = receiver.redirectURI.absoluteString
        async let redirect = receiver.waitForRedirect(state: "good-state", timeout: .seconds(20))
        let favicon = try await URLSession.shared.data(
            from: URL(string: base.replacingOccurrences(of: "/callback", with: "/favicon.ico"))!)
        #expect((favicon.1 as? HTTPURLResponse)?.statusCode == 404)
        let forged = try await URLSession.shared.data(from: URL(string: "\(base)?code=x&state=forged")!)
        #expect((forged.1 as? HTTPURLResponse)?.statusCode == 400)
        let good = try await URLSession.shared.data(from: URL(string: "\(base)?code=x&state=good-state")!)
        #expect((good.1 as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: good.0, as: UTF8.self).contains("You can close this tab"))
        #expect(try await redirect == "\(base)?code=x&state=good-state")
        // One-shot: the port is closed now.
        await #expect(throws: (any Error).self) { _ = try await URLSession.shared.data(from: URL(string: base)!) }
    }

    @Test("IPv6 loopback works too")
    func ipv6() async throws {
        guard let receiver = try? LoopbackRedirectReceiver(address: .ipv6) else { return }  // no IPv6 on this host
        #expect(receiver.redirectURI.absoluteString.hasPrefix("http://[::1]:"))
        receiver.close()
    }

    @Test("It times out, and cancellation stops it at once")
    func timeoutAndCancel() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let error = try await #require(throws: MendError.self) {
            _ = try await receiver.waitForRedirect(state: "s", timeout: .milliseconds(300))
        }
        #expect(error.code == .Transport.timedOut)
        let other = try LoopbackRedirectReceiver()
        let task = Task { try await other.waitForRedirect(state: "s", timeout: .seconds(600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }
}
