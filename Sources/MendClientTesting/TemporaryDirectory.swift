public import Foundation

/// A new, empty directory under the system's temporary directory (`mend-tests-<UUID>`), for a test's files.
public func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mend-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
