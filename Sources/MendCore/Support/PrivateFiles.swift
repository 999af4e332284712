package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files that only this user may read or write, written so that a crash leaves the old content or the new: the one
/// implementation under Mend's file stores (MendLogin's `FileTokenStore`, MendResponseStore's `FileResponseStore`).
///
/// - Folders are created 0700; an existing folder that another user owns or others can write to is refused.
/// - Files are opened without following symbolic links and never leak into child processes (`O_NOFOLLOW`,
///   `O_CLOEXEC`); a file that is not a regular file owned by this user is refused.
/// - A write goes to a temporary file in the same folder (0600 from the moment it exists), is `fsync`ed, renamed over
///   the old file (atomic), and the folder is `fsync`ed.
package enum PrivateFiles {
    /// Why a file operation failed, in words that name the file (never its content).
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// Whether the setup is wrong (a folder that cannot be created or is not private), rather than one file.
        package var isMisconfiguration: Bool
        /// What failed, and the system's reason.
        package var description: String
    }

    /// The points of a write, in order, where a crash could leave something behind.
    package enum WriteStage: String, CaseIterable, Sendable {
        /// The temporary file exists, empty.
        case opened
        /// Half the bytes are in the temporary file.
        case midWrite
        /// The temporary file is complete and synced, not yet renamed.
        case synced
        /// The rename is done (the new content is the file), the folder not yet synced.
        case renamed
    }

    /// The file's bytes, `nil` when it does not exist; refuses a symbolic link, anything but a regular file owned by
    /// this user, and a file larger than `maximumSize` (`tooLarge` says what it is too large to be).
    package static func read(_ url: URL, maximumSize: Int, tooLarge: String) throws(Failure) -> Data? {
        let name = url.lastPathComponent
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            if error == ELOOP { throw unreadable("\(name) is a symbolic link, which is not followed") }
            throw unreadable("\(name) cannot be read (errno \(error))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw unreadable("\(name) cannot be read (errno \(errno))") }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == geteuid() else {
            throw unreadable("\(name) is not a regular file owned by this user")
        }
        guard Int(status.st_size) <= maximumSize else { throw unreadable("\(name) is too large to be \(tooLarge)") }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while data.count <= maximumSize {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count == 0 { return data }
            guard count > 0 else {
                let error = errno
                if error == EINTR { continue }
                throw unreadable("\(name) cannot be read (errno \(error))")
            }
            data.append(contentsOf: chunk[0..<count])
        }
        throw unreadable("\(name) is too large to be \(tooLarge)")
    }

    /// Writes `data` to `url` atomically (temporary file, fsync, rename, fsync of the folder), creating the folder
    /// when missing; `what` names the content in an error. `observe` hears each stage (the crash-safety tests kill
    /// the writer there), and makes the write stop halfway once.
    package static func write(
        _ data: Data, to url: URL, what: String, protection: Protection = .none,
        observe: (@Sendable (WriteStage) -> Void)? = nil
    ) throws(Failure) {
        let directory = url.deletingLastPathComponent()
        try createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw unreadable("a temporary file cannot be created (errno \(errno))") }
        observe?(.opened)
        protection.apply(to: temporary)
        // errno is read right after the call that failed: close() and unlink() may change it.
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            let half = observe == nil ? buffer.count : buffer.count / 2
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
                if written == half, half < buffer.count { observe?(.midWrite) }
            }
            if fsync(descriptor) != 0 { failure = errno }
        }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure == 0 { observe?(.synced) }
        if failure == 0, rename(temporary.path, url.path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary.path)
            throw unreadable("\(what) cannot be written (errno \(failure))")
        }
        observe?(.renamed)
        syncDirectory(directory)
        removeAbandonedTemporaryFiles(in: directory, of: url.lastPathComponent)
    }

    /// Removes the file (a missing file is fine), then syncs its folder.
    package static func remove(_ url: URL) throws(Failure) {
        if unlink(url.path) != 0 {
            let error = errno
            if error != ENOENT { throw unreadable("\(url.lastPathComponent) cannot be removed (errno \(error))") }
        }
        syncDirectory(url.deletingLastPathComponent())
    }

    /// How a file is protected at rest on Apple platforms while the device is locked.
    package enum Protection: Sendable {
        /// The system's default.
        case none
        /// Readable after the first unlock until the next restart (`completeUntilFirstUserAuthentication`): what a
        /// background refresh may still read.
        case untilFirstUserAuthentication

        func apply(to url: URL) {
            #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
                // Not built on Linux, where Mend is tested: Apple's data protection exists only there.
                guard case .untilFirstUserAuthentication = self else { return }
                try? FileManager.default.setAttributes(
                    [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: url.path)
            #endif
        }
    }

    /// Removes the temporary files of writers of `name` that died before their rename (older than a minute, so
    /// never one that a live writer is still filling).
    static func removeAbandonedTemporaryFiles(in directory: URL, of name: String) {
        let prefix = ".\(name)."
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

    /// Creates the folder (0700) when missing; refuses an existing one that another user owns or that others can
    /// write to (they could replace the files or their locks) — such as `/tmp` itself.
    package static func createDirectory(_ directory: URL) throws(Failure) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw misconfigured("the folder \(directory.path) cannot be created: \(reason(error, near: directory))")
        }
        var status = stat()
        guard lstat(directory.path, &status) == 0 else {
            throw misconfigured("the folder \(directory.path) cannot be read: \(String(cString: strerror(errno)))")
        }
        let isDirectory = (status.st_mode & S_IFMT) == S_IFDIR
        // Group-writable is fine when the group is this user's own (user private groups, umask 002).
        let writableByOthers =
            status.st_mode & S_IWOTH != 0 || (status.st_mode & S_IWGRP != 0 && status.st_gid != getegid())
        guard isDirectory, status.st_uid == geteuid(), !writableByOthers else {
            throw misconfigured(
                "the folder \(directory.path) is not a folder of this user's that only this user can write to (mode "
                    + "\(String(status.st_mode & 0o7777, radix: 8))): give the store a folder of its own")
        }
        guard access(directory.path, W_OK) == 0 else {
            throw misconfigured("the folder \(directory.path) cannot be written: \(String(cString: strerror(errno)))")
        }
    }

    /// The system's reason a folder could not be created: the first existing ancestor's, when it is not writable
    /// (a read-only disk, another user's folder), else Foundation's words.
    package static func reason(_ error: any Error, near directory: URL) -> String {
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

    /// `fsync`s a folder, so that a rename or an unlink in it survives a crash.
    package static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func unreadable(_ text: String) -> Failure { Failure(isMisconfiguration: false, description: text) }
    private static func misconfigured(_ text: String) -> Failure {
        Failure(isMisconfiguration: true, description: text)
    }
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
