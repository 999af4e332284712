public import Crypto
public import Foundation
import HTTPTypes
public import MendCore
public import MendHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `ResponseStore` in a folder: the user's last good answers, kept across launches, for
/// `LastKnownGood`.
///
/// - Where: a folder of the app's (by default `$XDG_CACHE_HOME/mend/answers`, else `~/.cache/mend/answers`), 0700;
///   one sub-folder per principal, one file per answer, both named by a SHA-256 of what they hold (no user id or URL
///   appears in a name).
/// - Whose: a purge deletes the principal's files (the bytes are unlinked, not only forgotten); each file records
///   the hash of its key, and an encrypted one binds it as associated data, so a file moved to another user's folder
///   is refused (`transport/16`, and deleted).
/// - Crash safety: each answer is written to a temporary file, `fsync`ed, renamed over the old one and the folder
///   `fsync`ed (as MendLogin's `FileTokenStore`): a writer killed at any point leaves the old answer or the new one.
/// - Bounds: the files written longest ago are deleted while the folder holds more than
///   `ResponseStoreLimits.maximumBytes` (checked at each write); an answer older than
///   `ResponseStoreLimits.maximumAge` is deleted when read, or at the next write.
/// - Encryption (optional): AES-GCM with a key the app keeps (in the platform's secret store).
/// - Apple platforms: the files are protected `completeUntilFirstUserAuthentication` (readable by a background
///   refresh after the first unlock). That code is not built on Linux, where Mend is tested.
/// - What is never in it: a credential. The answers come without credential-bearing header fields
///   (`StoredAnswer`), and keys are made before a credential is attached.
public final class FileResponseStore: ResponseStore {
    /// The folder.
    public let directory: URL
    private let key: SymmetricKey?
    private let limits: ResponseStoreLimits
    private let now: @Sendable () -> Date
    private let observeWrite: (@Sendable (PrivateFiles.WriteStage) -> Void)?

    /// Creates a store in `directory` (created 0700 at the first write).
    ///
    /// - Parameters:
    ///   - directory: A folder of the app's own, which nothing else writes to.
    ///   - encryptionKey: Encrypts every answer (AES-GCM) when given.
    ///   - limits: The size bound and the maximum age of an answer.
    ///   - clock: Where the answers' ages are read from.
    public init(
        directory: URL = FileResponseStore.defaultDirectory(), encryptionKey: SymmetricKey? = nil,
        limits: ResponseStoreLimits = ResponseStoreLimits(), clock: PipelineClock = .system
    ) {
        self.directory = directory
        self.key = encryptionKey
        self.limits = limits
        self.now = clock.now
        self.observeWrite = nil
    }

    /// A store that reports each stage of every write to `observeWrite` (the crash-safety test kills the writer).
    package init(directory: URL, observeWrite: @escaping @Sendable (PrivateFiles.WriteStage) -> Void) {
        self.directory = directory
        self.key = nil
        self.limits = ResponseStoreLimits()
        self.now = PipelineClock.system.now
        self.observeWrite = observeWrite
    }

    /// `$XDG_CACHE_HOME/mend/answers`, or `~/.cache/mend/answers`.
    public static func defaultDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("mend/answers")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/mend/answers")
    }

    // MARK: ResponseStore

    /// The answer stored for `key`; `nil` when there is none, or it is older than the maximum age (then deleted).
    public func answer(for key: ResponseStoreKey) async throws -> StoredAnswer? {
        let url = fileURL(for: key)
        let data: Data
        do {
            guard
                let read = try PrivateFiles.read(
                    url, maximumSize: limits.maximumBytes + (64 << 10), tooLarge: "an answer")
            else { return nil }
            data = read
        } catch {
            throw MendError(
                code: .Transport.cacheReadFailed, developerMessage: "The response store: \(error.description).",
                catalog: .core)
        }
        let answer: StoredAnswer
        do {
            answer = try EntryFormat.decode(data, keyHash: Self.hash(key.canonicalText), key: self.key)
        } catch {
            try? PrivateFiles.remove(url)
            throw MendError(
                code: .Transport.invalidCacheData,
                developerMessage:
                    "A stored answer (\(url.lastPathComponent.prefix(12))…) \(error.reason); it was deleted.",
                catalog: .core)
        }
        guard now().timeIntervalSince(answer.storedAt) <= limits.maximumAge else {
            try? PrivateFiles.remove(url)
            return nil
        }
        return answer
    }

    /// Stores `answer` for `key` (atomically), then deletes the oldest files while the folder is over its bound.
    public func store(_ answer: StoredAnswer, for key: ResponseStoreKey) async throws {
        guard answer.size <= limits.maximumBytes else { return }
        let data = try EntryFormat.encode(answer, keyHash: Self.hash(key.canonicalText), key: self.key)
        do {
            try PrivateFiles.createDirectory(directory)
            try PrivateFiles.write(
                data, to: fileURL(for: key), what: "an answer", protection: .untilFirstUserAuthentication,
                observe: observeWrite)
        } catch {
            throw MendError(
                code: .Transport.cacheReadFailed, developerMessage: "The response store: \(error.description).",
                catalog: .core)
        }
        enforceLimits()
    }

    /// Deletes the answer of `key`.
    public func remove(_ key: ResponseStoreKey) async throws {
        try? PrivateFiles.remove(fileURL(for: key))
    }

    /// Deletes every file of `principal`, then its folder.
    public func purge(_ principal: Principal) async throws {
        try removeFolder(directory.appendingPathComponent(Self.hash(principal.canonicalText)))
    }

    /// Deletes every principal's files but `principal`'s.
    public func purgeAll(keeping principal: Principal?) async throws {
        let kept = principal.map { Self.hash($0.canonicalText) }
        for name in folderNames() where name != kept {
            try removeFolder(directory.appendingPathComponent(name))
        }
    }

    // MARK: Files

    /// `<folder>/<hash of the principal>/<hash of the key>`.
    func fileURL(for key: ResponseStoreKey) -> URL {
        directory.appendingPathComponent(Self.hash(key.principal.canonicalText))
            .appendingPathComponent(Self.hash(key.canonicalText))
    }

    /// The lowercase hex SHA-256 of `text`, shortened to 128 bits (a name, not a secret).
    static func hash(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    private func folderNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { name in
            name.count == 32 && name.allSatisfy(\.isHexDigit)
        }
    }

    private func removeFolder(_ folder: URL) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        do {
            for name in names { try PrivateFiles.remove(folder.appendingPathComponent(name)) }
        } catch {
            throw MendError(
                code: .Transport.cacheReadFailed, developerMessage: "The response store: \(error.description).",
                catalog: .core)
        }
        rmdir(folder.path)
        PrivateFiles.syncDirectory(directory)
    }

    /// Deletes answers older than the maximum age, then the files written longest ago while the total is over the
    /// bound.
    private func enforceLimits() {
        var files: [(url: URL, size: Int, modified: Date)] = []
        for folder in folderNames() {
            let folderURL = directory.appendingPathComponent(folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? []
            where !name.hasPrefix(".") {
                let url = folderURL.appendingPathComponent(name)
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                    let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
                else { continue }
                files.append((url, size, modified))
            }
        }
        let cutoff = now().addingTimeInterval(-limits.maximumAge)
        var total = 0
        var kept: [(url: URL, size: Int, modified: Date)] = []
        for file in files {
            if file.modified < cutoff {
                try? PrivateFiles.remove(file.url)
            } else {
                total += file.size
                kept.append(file)
            }
        }
        for file in kept.sorted(by: { $0.modified < $1.modified }) {
            guard total > limits.maximumBytes else { break }
            try? PrivateFiles.remove(file.url)
            total -= file.size
        }
    }
}

/// One answer's file: `MEND-ANSWER-V1 key=<the key's hash>\n`, a line of JSON (status, time, header fields, varied
/// fields, the body's length), then the body as it came; encrypted, `MEND-ANSWER-V1E\n` and the JSON line and body
/// sealed with AES-GCM, the key's hash as associated data (not written).
enum EntryFormat {
    static let plainHeader = Data("MEND-ANSWER-V1 key=".utf8)
    static let encryptedHeader = Data("MEND-ANSWER-V1E\n".utf8)

    struct Invalid: Error {
        var reason: String
    }

    struct Metadata: Codable {
        var status: Int
        var storedAt: Double
        var headers: [[String]]
        var varied: [String: String]
        var bodyLength: Int
    }

    static func encode(_ answer: StoredAnswer, keyHash: String, key: SymmetricKey?) throws(MendError) -> Data {
        let metadata = Metadata(
            status: answer.status, storedAt: answer.storedAt.timeIntervalSince1970,
            headers: answer.headerFields.map { [$0.name.rawName, $0.value] }, varied: answer.variedFields,
            bodyLength: answer.body.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let line = try? encoder.encode(metadata) else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The answer cannot be stored.", catalog: .core)
        }
        let plain = line + Data("\n".utf8) + answer.body
        guard let key else { return plainHeader + Data("\(keyHash)\n".utf8) + plain }
        guard let sealed = try? AES.GCM.seal(plain, using: key, authenticating: Data(keyHash.utf8)).combined else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The answer cannot be encrypted.", catalog: .core)
        }
        return encryptedHeader + sealed
    }

    static func decode(_ data: Data, keyHash: String, key: SymmetricKey?) throws(Invalid) -> StoredAnswer {
        let plain: Data
        if data.starts(with: encryptedHeader) {
            guard let key else { throw Invalid(reason: "is encrypted, and the store has no key") }
            do {
                let box = try AES.GCM.SealedBox(combined: data.dropFirst(encryptedHeader.count))
                plain = try AES.GCM.open(box, using: key, authenticating: Data(keyHash.utf8))
            } catch {
                throw Invalid(reason: "does not decrypt with this key for this request")
            }
        } else if data.starts(with: plainHeader) {
            guard key == nil else { throw Invalid(reason: "is not encrypted, and the store encrypts") }
            let rest = data.dropFirst(plainHeader.count)
            guard let end = rest.firstIndex(of: UInt8(ascii: "\n")) else { throw Invalid(reason: "has no key line") }
            guard String(decoding: rest[rest.startIndex..<end], as: UTF8.self) == keyHash else {
                throw Invalid(reason: "belongs to another request or user")
            }
            plain = Data(rest[rest.index(after: end)...])
        } else {
            throw Invalid(reason: "is not an answer of this version")
        }
        guard let newline = plain.firstIndex(of: UInt8(ascii: "\n")),
            let metadata = try? JSONDecoder().decode(Metadata.self, from: plain[plain.startIndex..<newline])
        else { throw Invalid(reason: "has no readable header") }
        let body = plain[plain.index(after: newline)...]
        guard metadata.bodyLength == body.count else { throw Invalid(reason: "is truncated") }
        var headerFields = HTTPFields()
        for pair in metadata.headers {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else {
                throw Invalid(reason: "has a malformed header field")
            }
            headerFields.append(HTTPField(name: name, value: pair[1]))
        }
        return StoredAnswer(
            status: metadata.status, headerFields: headerFields, body: Data(body),
            storedAt: Date(timeIntervalSince1970: metadata.storedAt), variedFields: metadata.varied)
    }
}
