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
    package enum WriteStage: String, CaseIterable, Sendable {
        /// The temporary file exists, empty.
        case opened
        /// Half the bytes are in the temporary file.
        case midWrite
        /// The temporary file is complete and synced, not yet renamed.
        case synced
        /// The rename is done (the new session is the file), the folder not yet synced.
        case renamed
    }

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
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            if error == ELOOP {
                throw MendError.storeUnavailable("\(url.lastPathComponent) is a symbolic link, which is not followed")
            }
            throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be read (errno \(error))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be read (errno \(errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid() else {
            throw MendError.storeUnavailable("\(url.lastPathComponent) is not a regular file owned by this user")
        }
        guard Int(status.st_size) <= maximumFileSize else {
            throw MendError.storeUnavailable("\(url.lastPathComponent) is too large to be a session")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while data.count <= maximumFileSize {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count == 0 { return data }
            guard count > 0 else {
                let error = errno
                if error == EINTR { continue }
                throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be read (errno \(error))")
            }
            data.append(contentsOf: chunk[0..<count])
        }
        throw MendError.storeUnavailable("\(url.lastPathComponent) is too large to be a session")
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
        let directory = url.deletingLastPathComponent()
        try Self.createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MendError.storeUnavailable("a temporary file cannot be created (errno \(errno))")
        }
        observeWrite?(.opened)
        // errno is read right after the call that failed: close() and unlink() may change it.
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            let half = observeWrite == nil ? buffer.count : buffer.count / 2
            var written = 0
            while written < buffer.count {
                let end = written < half ? half : buffer.count
                let count = systemWrite(descriptor, buffer.baseAddress! + written, end - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    failure = count < 0 ? errno : EIO
                    return
                }
                written += count
                if written == half, half < buffer.count { observeWrite?(.midWrite) }
            }
            if fsync(descriptor) != 0 { failure = errno }
        }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure == 0 { observeWrite?(.synced) }
        if failure == 0, rename(temporary.path, url.path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary.path)
            throw MendError.storeUnavailable("the session cannot be written (errno \(failure))")
        }
        observeWrite?(.renamed)
        Self.syncDirectory(directory)
        removeAbandonedTemporaryFiles(in: directory)
    }

    /// Removes the temporary files of writers that died before their rename (older than a minute, so never one that
    /// a live writer is still filling).
    private func removeAbandonedTemporaryFiles(in directory: URL) {
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let cutoff = Date().addingTimeInterval(-60)
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let path = directory.appendingPathComponent(name).path
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified < cutoff
            else { continue }
            unlink(path)
        }
    }

    /// Removes the file (a missing file is fine).
    public func delete() async throws {
        if unlink(url.path) != 0 {
            let error = errno
            if error != ENOENT {
                throw MendError.storeUnavailable("\(url.lastPathComponent) cannot be removed (errno \(error))")
            }
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
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw MendError.storeMisconfigured(
                "the folder \(directory.path) cannot be created: \(Self.reason(error, near: directory))")
        }
        var status = stat()
        guard lstat(directory.path, &status) == 0 else {
            throw MendError.storeMisconfigured(
                "the folder \(directory.path) cannot be read: \(String(cString: strerror(errno)))")
        }
        let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
        // Group-writable is fine when the group is this user's own (user private groups, umask 002).
        let writableByOthers =
            status.st_mode & S_IWOTH != 0 || (status.st_mode & S_IWGRP != 0 && status.st_gid != getegid())
        guard isDirectory, status.st_uid == geteuid(), !writableByOthers else {
            throw MendError.storeMisconfigured(
                "the folder \(directory.path) is not a folder of this user's that only this user can write to (mode "
                    + "\(String(status.st_mode & 0o7777, radix: 8))): give the store a folder of its own")
        }
        guard access(directory.path, W_OK) == 0 else {
            throw MendError.storeMisconfigured(
                "the folder \(directory.path) cannot be written: \(String(cString: strerror(errno)))")
        }
    }

    /// The system's reason a folder could not be created: the first existing ancestor's, when it is not writable
    /// (a read-only disk, another user's folder), else Foundation's words.
    static func reason(_ error: any Error, near directory: URL) -> String {
        var ancestor = directory
        while !FileManager.default.fileExists(atPath: ancestor.path), ancestor.pathComponents.count > 1 {
            ancestor.deleteLastPathComponent()
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isFolder), !isFolder.boolValue {
            return "\(ancestor.path) is a file, not a folder"
        }
        if access(ancestor.path, W_OK) != 0 {
            return "\(String(cString: strerror(errno))) (\(ancestor.path))"
        }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying.map { String(cString: strerror(Int32($0.code))) }
            ?? "\((error as NSError).localizedDescription)"
    }

    private static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
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
