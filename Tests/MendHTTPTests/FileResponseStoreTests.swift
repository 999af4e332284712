import Crypto
import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import MendLogin
import Testing

@testable import MendHTTPURLSession
@testable import MendResponseStore

private let alice = Principal(subject: "alice", issuer: "backend")
private let bob = Principal(subject: "bob", issuer: "backend")

private func key(_ principal: Principal, _ path: String = "/me") -> ResponseStoreKey {
    ResponseStoreKey(principal: principal, method: "GET", resource: "https://api.example\(path)")
}

private func answer(_ text: String, at date: Date = Date()) -> StoredAnswer {
    StoredAnswer(
        status: 200, headerFields: [.contentType: "application/json"], body: Data(text.utf8), storedAt: date)
}

/// Every byte under `folder`, file by file.
private func everyFile(under folder: URL) -> [Data] {
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    return (enumerator?.allObjects as? [URL] ?? []).compactMap { try? Data(contentsOf: $0) }
}

private func contains(_ needle: String, under folder: URL) -> Bool {
    everyFile(under: folder).contains { $0.range(of: Data(needle.utf8)) != nil }
}

@Suite("FileResponseStore")
struct FileResponseStoreTests {
    @Test("an answer comes back as it was stored, and the folder names hold no user id or URL")
    func roundTrip() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let store = FileResponseStore(directory: folder)
        try await store.store(answer(#"{"name":"Alice Example"}"#), for: key(alice))
        let read = try #require(try await store.answer(for: key(alice)))
        #expect(String(decoding: read.body, as: UTF8.self) == #"{"name":"Alice Example"}"#)
        #expect(read.headerFields[.contentType] == "application/json")
        let names = FileManager.default.subpaths(atPath: folder.path) ?? []
        #expect(!names.isEmpty && names.allSatisfy { !$0.contains("alice") && !$0.contains("api.example") })
        #expect(try await store.answer(for: key(bob)) == nil)
    }

    @Test("a purge deletes the principal's bytes from the disk; a change of user deletes the others'")
    func purgeDeletesBytes() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let store = FileResponseStore(directory: folder)
        try await store.store(answer("alice-secret-marker"), for: key(alice))
        try await store.store(answer("bob-secret-marker"), for: key(bob))
        #expect(contains("alice-secret-marker", under: folder))
        try await store.purge(alice)
        #expect(!contains("alice-secret-marker", under: folder))
        #expect(contains("bob-secret-marker", under: folder))
        try await store.store(answer("alice-secret-marker"), for: key(alice))
        try await store.purgeAll(keeping: alice)
        #expect(!contains("bob-secret-marker", under: folder))
        #expect(contains("alice-secret-marker", under: folder))
        try await store.purgeAll(keeping: nil)
        #expect(everyFile(under: folder).isEmpty)
    }

    @Test("an answer that no longer decodes is invalidCacheData (transport/16), and dropped")
    func invalidCacheData() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let store = FileResponseStore(directory: folder)
        try await store.store(answer("{}"), for: key(alice))
        let file = store.fileURL(for: key(alice))
        for corruption in [Data("garbage".utf8), Data("MEND-ANSWER-V1 key=00\n{\"status\":".utf8)] {
            try corruption.write(to: file)
            let error = await #expect(throws: MendError.self) { try await store.answer(for: key(alice)) }
            #expect(error?.code == .Transport.invalidCacheData)
            #expect(error?.name == "invalidCacheData" && error?.category == .transient)
            #expect(!FileManager.default.fileExists(atPath: file.path), "dropped")
            try await store.store(answer("{}"), for: key(alice))
        }
        // A file moved into another user's place does not pass for theirs.
        try await store.store(answer("alice-only"), for: key(alice, "/feed"))
        try FileManager.default.createDirectory(
            at: store.fileURL(for: key(bob, "/feed")).deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: store.fileURL(for: key(alice, "/feed")), to: store.fileURL(for: key(bob, "/feed")))
        let moved = await #expect(throws: MendError.self) { try await store.answer(for: key(bob, "/feed")) }
        #expect(moved?.code == .Transport.invalidCacheData)
    }

    @Test("a store that cannot be read is cacheReadFailed (transport/15)")
    func cacheReadFailed() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let store = FileResponseStore(directory: folder)
        try await store.store(answer("{}"), for: key(alice))
        let file = store.fileURL(for: key(alice))
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: folder)
        let error = await #expect(throws: MendError.self) { try await store.answer(for: key(alice)) }
        #expect(error?.code == .Transport.cacheReadFailed)
        #expect(error?.name == "cacheReadFailed")
    }

    @Test("encrypted at rest: the body is not on disk, and another key cannot read it")
    func encrypted() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let store = FileResponseStore(directory: folder, encryptionKey: SymmetricKey(size: .bits256))
        try await store.store(answer("plain-text-marker"), for: key(alice))
        #expect(!contains("plain-text-marker", under: folder))
        #expect(
            try await store.answer(for: key(alice)).map { String(decoding: $0.body, as: UTF8.self) }
                == "plain-text-marker")
        let other = FileResponseStore(directory: folder, encryptionKey: SymmetricKey(size: .bits256))
        let error = await #expect(throws: MendError.self) { try await other.answer(for: key(alice)) }
        #expect(error?.code == .Transport.invalidCacheData)
    }

    @Test("the size bound evicts the answers written longest ago; the maximum age deletes old ones")
    func bounds() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let now = Locked(Date())
        let clock = PipelineClock(now: { now.current })
        let store = FileResponseStore(
            directory: folder, limits: .init(maximumBytes: 1_000, maximumAge: 3600), clock: clock)
        let big = String(repeating: "x", count: 400)
        for index in 0..<3 {
            try await store.store(answer(big, at: now.current), for: key(alice, "/\(index)"))
            // Distinct modification times, oldest first.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: Double(index - 10))],
                ofItemAtPath: store.fileURL(for: key(alice, "/\(index)")).path)
        }
        try await store.store(answer("small", at: now.current), for: key(alice, "/3"))
        #expect(try await store.answer(for: key(alice, "/0")) == nil)
        #expect(try await store.answer(for: key(alice, "/2")) != nil)
        now.withLock { $0 = $0.addingTimeInterval(3601) }
        #expect(try await store.answer(for: key(alice, "/2")) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(for: key(alice, "/2")).path))
    }

    @Test("the credentials manager purges at sign-out, at a session the issuer ended, and at a change of user")
    func managerPurges() async throws {
        let folder = temporaryDirectory().appendingPathComponent("answers")
        let answers = FileResponseStore(directory: folder)
        let manager = CredentialsManager(store: InMemoryTokenStore(), responseStore: answers)
        func session(_ user: String) -> Session {
            Session(
                issuer: .backend, accessToken: AccessToken(tokenString: "EAA\(user)TOKENxxxxxxxxxxxxxxxx"),
                user: .init(id: user))
        }
        try await manager.signIn(session("alice"))
        #expect(try await manager.principal() == alice)
        try await answers.store(answer("alice-marker"), for: key(alice))
        // A change of user: Alice's answers go.
        try await manager.signIn(session("bob"))
        #expect(!contains("alice-marker", under: folder))
        try await answers.store(answer("bob-marker"), for: key(bob))
        // A logout.
        try await manager.logout(revoke: false)
        #expect(!contains("bob-marker", under: folder))
        #expect(try await manager.principal() == nil)
        // A rejection that ends the session (with no authority: a token nothing can refresh).
        try await manager.signIn(session("alice"))
        try await answers.store(answer("alice-marker"), for: key(alice))
        let rejection = MendError(code: .HTTP.unauthorized, developerMessage: "revoked", catalog: .core)
        _ = try? await manager.refreshCredential(
            rejected: Credential(token: "EAAaliceTOKENxxxxxxxxxxxxxxxx"), error: rejection)
        #expect(try await manager.currentSession() == nil)
        #expect(!contains("alice-marker", under: folder))
    }
}

@Suite("URLSessionTransport keeps no answers")
struct URLSessionTransportCacheTests {
    @Test("its session has no URLCache")
    func noURLCache() {
        #expect(!URLSessionTransport().keepsAnswers)
    }
}
