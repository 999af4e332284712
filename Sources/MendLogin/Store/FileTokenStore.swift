public import Crypto
public import Foundation
public import MendCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A session in a file, for command-line tools, desktop apps and servers on Linux and macOS.
///
/// - Where: `$XDG_STATE_HOME/mend/<name>.json` (default `~/.local/state/mend/`), created with mode 0700.
/// - Permissions: the file is 0600 from the moment it exists.
/// - Crash safety: a write goes to a temporary file in the same folder, is `fsync`ed, renamed over the old file
///   (atomic), and the folder is `fsync`ed: a writer killed at any point leaves the old session or the new one,
///   never a half-written file.
/// - Concurrency: ``withExclusiveAccess(_:)`` holds a ``StoreLock`` (within the process, and an advisory `flock` on
///   `<name>.lock` across processes), so that no two managers or processes ever write or refresh at once.
/// - Encryption (optional): AES-GCM with a key the caller supplies (from the platform's secret store, say).
public final class FileTokenStore: TokenStore {
    /// The session file.
    public let url: URL
    private let key: SymmetricKey?

    /// Creates a store for the file at `url`, encrypted with `key` when given.
    public init(url: URL, encryptionKey key: SymmetricKey? = nil) {
        self.url = url
        self.key = key
    }

    /// Creates a store named `name` in the XDG state folder.
    public convenience init(name: String = "session", encryptionKey key: SymmetricKey? = nil) {
        self.init(url: Self.defaultDirectory().appendingPathComponent("\(name).json"), encryptionKey: key)
    }

    /// `$XDG_STATE_HOME/mend`, or `~/.local/state/mend`.
    public static func defaultDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("mend")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/mend")
    }

    /// Reads the session; `nil` when the file does not exist.
    public func read() async throws -> Session? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return nil }
            throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be read")
        }
        let plain: Data
        if let key {
            do {
                plain = try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)
            } catch {
                throw MendError.storeUnavailable("\(url.lastPathComponent) does not decrypt with this key")
            }
        } else {
            plain = data
        }
        do {
            return try JSONDecoder.session.decode(Session.self, from: plain)
        } catch {
            throw MendError.storeUnavailable("\(url.lastPathComponent) does not hold a session")
        }
    }

    /// Writes the session atomically (temporary file, fsync, rename, fsync of the folder).
    public func write(_ session: Session) async throws {
        var data = try JSONEncoder.session.encode(session)
        if let key {
            guard let combined = try? AES.GCM.seal(data, using: key).combined else {
                throw MendError.storeUnavailable("the session cannot be encrypted")
            }
            data = combined
        }
        try Self.createDirectory(url.deletingLastPathComponent())
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw MendError.storeUnavailable("a temporary file cannot be created (errno \(errno))")
        }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
                guard count > 0 else { return false }
                written += count
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw MendError.storeUnavailable("the session cannot be written (errno \(errno))")
        }
        Self.syncDirectory(url.deletingLastPathComponent())
    }

    /// Removes the file (a missing file is fine).
    public func delete() async throws {
        if unlink(url.path) != 0, errno != ENOENT {
            throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be removed (errno \(errno))")
        }
        Self.syncDirectory(url.deletingLastPathComponent())
    }

    /// Holds the store's lock while `body` runs: a lock within this process (managers and tasks wait their turn
    /// without blocking a thread) and an exclusive `flock` on `<file>.lock` across processes.
    public func withExclusiveAccess<Result: Sendable>(
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        try Self.createDirectory(url.deletingLastPathComponent())
        let lockFile = URL(fileURLWithPath: url.path + ".lock")
        return try await StoreLock(named: "file:\(lockFile.standardizedFileURL.path)", file: lockFile).withLock(body)
    }

    private static func createDirectory(_ directory: URL) throws(MendError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw MendError.storeUnavailable("the folder \(directory.lastPathComponent) cannot be created")
        }
    }

    private static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

extension JSONEncoder {
    static var session: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var session: JSONDecoder {
        let decoder = JSONDecoder()
        return decoder
    }
}
