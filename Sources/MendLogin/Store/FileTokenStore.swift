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
/// - Encryption (optional): AES-GCM with a key the caller supplies (from the platform's secret store, say), with
///   associated data that binds the file's format version and purpose (files written before that still open, and
///   are rewritten in the new format at the next write).
/// - Hostile folders: the session and lock files are opened without following symbolic links and never leak into
///   child processes (`O_NOFOLLOW`, `O_CLOEXEC`); a session file that is not a regular file owned by this user, and a
///   folder that others can write to or that another user owns, are refused (`login/320`) rather than trusted.
public final class FileTokenStore: TokenStore {
    /// The session file.
    package let url: URL
    private let key: SymmetricKey?
    /// Called at each stage of a write (the crash-safety test kills the writer there).
    private let observeWrite: (@Sendable (WriteStage) -> Void)?

    /// The points of a write, in order, where a crash could leave something behind.
    package typealias WriteStage = PrivateFiles.WriteStage

    /// Creates a store for the file at `url`, encrypted with `key` when given.
    public init(url: URL, encryptionKey key: SymmetricKey? = nil) {
        self.url = url
        self.key = key
        self.observeWrite = nil
    }

    /// A store that reports each stage of every write to `observeWrite` (a test instrument).
    package init(url: URL, observeWrite: @escaping @Sendable (WriteStage) -> Void) {
        self.url = url
        self.key = nil
        self.observeWrite = observeWrite
    }

    /// Creates a store named `name` in the XDG state folder.
    public convenience init(name: String = "session", encryptionKey key: SymmetricKey? = nil) {
        self.init(url: Self.defaultDirectory().appendingPathComponent("\(name).json"), encryptionKey: key)
    }

    /// `$XDG_STATE_HOME/mend`, or `~/.local/state/mend`.
    package static func defaultDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("mend")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/mend")
    }

    /// The longest session file read (a session is a few KiB).
    static let maximumFileSize = 1 << 20

    /// What the encrypted format's associated data binds: the file's purpose and format version.
    static let associatedData = Data("dev.mend.FileTokenStore session v2".utf8)
    /// The first bytes of an encrypted file in the current format (before it, a bare AES-GCM box without associated
    /// data).
    static let encryptedHeader = Data("MEND-SESSION-V2\n".utf8)

    /// Reads the session; `nil` when the file does not exist.
    public func read() async throws -> Session? {
        guard let data = try Self.readFile(url) else { return nil }
        let plain: Data
        if let key {
            do {
                if data.starts(with: Self.encryptedHeader) {
                    let box = try AES.GCM.SealedBox(combined: data.dropFirst(Self.encryptedHeader.count))
                    plain = try AES.GCM.open(box, using: key, authenticating: Self.associatedData)
                } else {
                    plain = try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)  // written before v2
                }
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

    /// The file's bytes, `nil` when it does not exist; refuses a symbolic link, anything but a regular file owned by
    /// this user, and a file too large to be a session.
    private static func readFile(_ url: URL) throws(MendError) -> Data? {
        do {
            return try PrivateFiles.read(url, maximumSize: maximumFileSize, tooLarge: "a session")
        } catch {
            throw MendError.storeUnavailable(error.description)
        }
    }

    /// Writes the session atomically (temporary file, fsync, rename, fsync of the folder).
    public func write(_ session: Session) async throws {
        var data = try JSONEncoder.session.encode(session)
        if let key {
            guard let combined = try? AES.GCM.seal(data, using: key, authenticating: Self.associatedData).combined
            else {
                throw MendError.storeUnavailable("the session cannot be encrypted")
            }
            data = Self.encryptedHeader + combined
        }
        do {
            try PrivateFiles.write(data, to: url, what: "the session", observe: observeWrite)
        } catch {
            throw error.isMisconfiguration
                ? MendError.storeMisconfigured(error.description) : MendError.storeUnavailable(error.description)
        }
    }

    /// Removes the file (a missing file is fine).
    public func delete() async throws {
        do {
            try PrivateFiles.remove(url)
        } catch {
            throw MendError.storeUnavailable(error.description)
        }
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

    /// Checks, before anything is logged in, that the session can be kept here: creates the folder (0700) when
    /// missing, and refuses one that cannot be created or written, or that others can write to.
    ///
    /// - Throws: `login/324` (`tokenStoreMisconfigured`) naming the folder and the system's reason.
    public func prepare() throws(MendError) {
        try Self.createDirectory(url.deletingLastPathComponent())
    }

    /// Creates the folder (0700) when missing; refuses an existing one that another user owns or that others can
    /// write to (they could replace the session or its lock) — such as `/tmp` itself: give the store a folder of
    /// its own.
    static func createDirectory(_ directory: URL) throws(MendError) {
        do {
            try PrivateFiles.createDirectory(directory)
        } catch {
            throw MendError.storeMisconfigured(error.description)
        }
    }
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
