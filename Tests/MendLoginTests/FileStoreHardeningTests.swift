import Crypto
import Foundation
import MendClientTesting
import MendCore
import Testing

@testable import MendLogin

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("The file store in a hostile folder")
struct FileStoreHardeningTests {
    @Test("A session file that is a symbolic link is refused, not followed")
    func symlinkedSession() async throws {
        let directory = temporaryDirectory()
        let elsewhere = FileTokenStore(url: temporaryDirectory().appendingPathComponent("planted.json"))
        try await elsewhere.write(sampleSession(token: "EAAplantedTokenPPPPPPPPPPPPPPP"))
        let url = directory.appendingPathComponent("session.json")
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: elsewhere.url)
        let error = try await #require(throws: MendError.self) { try await FileTokenStore(url: url).read() }
        #expect(error.code == .Login.tokenStoreUnavailable)
        #expect(error.developerMessage.contains("symbolic link"))
    }

    @Test("A lock file that is a symbolic link is refused, not followed (nor created at its target)")
    func symlinkedLock() async throws {
        let directory = temporaryDirectory()
        let target = temporaryDirectory().appendingPathComponent("victim")
        let url = directory.appendingPathComponent("session.json")
        try FileManager.default.createSymbolicLink(
            at: URL(fileURLWithPath: url.path + ".lock"), withDestinationURL: target)
        await #expect(throws: MendError.self) {
            try await FileTokenStore(url: url).withExclusiveAccess { () }
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test("A folder that others can write to is refused")
    func worldWritableFolder() async throws {
        let directory = temporaryDirectory()
        #expect(chmod(directory.path, 0o777) == 0)
        let store = FileTokenStore(url: directory.appendingPathComponent("session.json"))
        let error = try await #require(throws: MendError.self) { try await store.write(sampleSession()) }
        // The setup's to fix (login/324, not retryable), with the folder's path.
        #expect(error.code == .Login.tokenStoreMisconfigured && error.category == .other)
        #expect(error.developerMessage.contains("777") && error.developerMessage.contains(directory.path))
        #expect(chmod(directory.path, 0o700) == 0)
        try await store.write(sampleSession())
        #expect(try await store.read()?.accessToken.tokenString == sampleSession().accessToken.tokenString)
    }

    @Test("A session file that is not a regular file is refused")
    func notARegularFile() async throws {
        let directory = temporaryDirectory()
        let url = directory.appendingPathComponent("session.json")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        await #expect(throws: MendError.self) { try await FileTokenStore(url: url).read() }
    }

    @Test("An oversized session file is refused without reading it all")
    func oversized() async throws {
        let url = temporaryDirectory().appendingPathComponent("session.json")
        try Data(repeating: 0x20, count: FileTokenStore.maximumFileSize + 1).write(to: url)
        let error = try await #require(throws: MendError.self) { try await FileTokenStore(url: url).read() }
        #expect(error.developerMessage.contains("too large"))
    }

    @Test("Encrypted files bind their purpose and format version; files written before still open and are upgraded")
    func associatedData() async throws {
        let key = SymmetricKey(size: .bits256)
        let url = temporaryDirectory().appendingPathComponent("session.json")
        let store = FileTokenStore(url: url, encryptionKey: key)
        try await store.write(sampleSession())
        let written = try Data(contentsOf: url)
        #expect(written.starts(with: FileTokenStore.encryptedHeader))
        let box = try AES.GCM.SealedBox(combined: written.dropFirst(FileTokenStore.encryptedHeader.count))
        #expect(throws: (any Error).self, "the box does not open without the associated data") {
            try AES.GCM.open(box, using: key)
        }
        #expect(try await store.read()?.accessToken.tokenString == sampleSession().accessToken.tokenString)

        // A file written before version 2: a bare box without associated data.
        let legacy = try AES.GCM.seal(JSONEncoder.session.encode(sampleSession(generation: 7)), using: key).combined!
        try legacy.write(to: url)
        #expect(try await store.read()?.generation == 7)
        try await store.write(sampleSession(generation: 8))
        #expect(try Data(contentsOf: url).starts(with: FileTokenStore.encryptedHeader))
        #expect(try await store.read()?.generation == 8)
    }
}
