import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A SQLite database file mend-server cannot use, through the built binary: what is wrong and where, in words, as
/// PostgreSQL's failures are said — never SQLiteNIO's "cantOpen: Failed to open to SQLite database at …".
@Suite("mend-server's SQLite failures in words", .enabled(if: ExecutableTests.binary != nil))
struct SQLiteFailureTests {
    enum Case: String, CaseIterable {
        case missingFolder, fileForFolder, folderForFile, notADatabase, locked
    }

    static func environment(database path: String) -> [String: String] {
        [
            "MEND_APP_ID": "1", "MEND_APP_SECRET": "x", "MEND_REDIRECT_URIS": "https://a.example/cb", "MEND_PORT": "0",
            "MEND_DATABASE_URL": "sqlite://\(path)",
        ]
    }

    @Test("each failure names the path and what to do", arguments: Case.allCases)
    func failureInWords(_ failure: Case) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mend-sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path: String
        let expected: String
        var lock: Int32 = -1
        defer { if lock >= 0 { close(lock) } }
        switch failure {
        case .missingFolder:
            path = directory.appendingPathComponent("no/such/folder/mend.sqlite").path
            expected = "the folder \(directory.path)/no/such/folder does not exist: create it"
        case .fileForFolder:
            let file = directory.appendingPathComponent("plain-file")
            try Data("x".utf8).write(to: file)
            path = file.appendingPathComponent("mend.sqlite").path
            expected = "\(file.path) is a file, not a folder"
        case .folderForFile:
            path = directory.path
            expected = "\(directory.path) is a folder, not a database file"
        case .notADatabase:
            path = directory.appendingPathComponent("notes.sqlite").path
            try Data(String(repeating: "not a database; ", count: 300).utf8).write(to: URL(fileURLWithPath: path))
            expected = "\(path) is not a SQLite database"
        case .locked:
            // Another process's lock on the whole file, as a tool holding a write transaction has: SQLite waits the
            // 5 s busy timeout, then gives up. Hung for ever before (SQLiteNIO's busy handler retries without end).
            path = directory.appendingPathComponent("held.sqlite").path
            FileManager.default.createFile(atPath: path, contents: nil)
            lock = open(path, O_RDWR)
            var whole = flock()
            whole.l_type = Int16(F_WRLCK)
            whole.l_whence = Int16(SEEK_SET)
            #expect(fcntl(lock, F_SETLK, &whole) == 0)
            expected = "\(path) is locked by another process"
        }
        let result = try await ExecutableTests.run([], environment: Self.environment(database: path))
        #expect(result.status == 1, "\(result.output)")
        // Failed before: "mend-server: cantOpen: Failed to open to SQLite database at …", "notADatabase: file is not
        // a database" after a trap in a debug build (the connection was not closed), and a start that never ended.
        #expect(
            result.output.contains("mend-server: cannot use the database (sqlite file \(path)): "), "\(result.output)")
        #expect(result.output.contains(expected), "\(result.output)")
        for raw in ["cantOpen", "Failed to open", "notADatabase", "SQLiteError", "Assertion failed"] {
            #expect(!result.output.contains(raw), "\(raw): \(result.output)")
        }
    }
}
