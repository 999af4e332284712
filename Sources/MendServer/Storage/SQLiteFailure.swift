import Foundation
import SQLiteNIO

/// Why a SQLite database file cannot be used, in words an operator acts on, with the path: what PostgreSQL's
/// failures already say (``ServerDatabase/reason(_:)``), for the default database.
enum SQLiteFailure {
    /// What is wrong with the folder or the file at `path` before SQLite is asked, if anything: a folder that does
    /// not exist or is not a folder, a folder this user cannot write into, a file this user cannot write, a folder
    /// where the file should be.
    static func fileProblem(at path: String, files: FileManager = .default) -> String? {
        let file = URL(fileURLWithPath: path)
        let folder = file.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { return "\(path) is a folder, not a database file: name a file in it" }
            if !files.isWritableFile(atPath: path) {
                return "the file \(path) cannot be written by this user: give the user write access, or name "
                    + "another file"
            }
            return nil
        }
        guard files.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "the folder \(folder) does not exist: create it (mkdir -p \(folder)) or name a file in another "
                + "folder"
        }
        guard isFolder.boolValue else { return "\(folder) is a file, not a folder: the database file cannot go in it" }
        guard files.isWritableFile(atPath: folder) else {
            return "the folder \(folder) cannot be written by this user, so the database file cannot be created "
                + "there: give the user write access, or name a file in another folder"
        }
        return nil
    }

    /// SQLite's answer to opening `path` or to the first statement, in words (never SQLiteNIO's `cantOpen: …`).
    static func reason(_ error: any Error, path: String?) -> String {
        let file = path ?? "the database"
        guard let failure = error as? SQLiteError else { return "SQLite could not open \(file)" }
        switch failure.reason {
        case .notADatabase:
            return "\(file) is not a SQLite database (the file holds something else): name another file, or move "
                + "that one away"
        case .busy, .busyTimeout, .busyInRecovery, .busyInSnapshot, .locked, .lockedBySharedCache:
            return "\(file) is locked by another process (another mend-server on the same file, or a tool holding "
                + "a transaction): stop it, or use PostgreSQL for several instances"
        case .readOnly, .readonlyCantLock, .readonlyDirectory, .readonlyInRecovery, .readonlyInRollback,
            .readonlyBackingMoved, .permission, .auth:
            return "\(file) cannot be written by this user (SQLite opened it read-only): give the user write access "
                + "to the file and its folder"
        case .corrupt: return "\(file) is damaged (SQLite reports it corrupt): restore it from a backup"
        case .full: return "the disk that holds \(file) is full"
        case .cantOpen: return "SQLite cannot open \(file) (the folder or the file cannot be used)"
        default: return "SQLite could not use \(file): \(failure.message)"
        }
    }
}
