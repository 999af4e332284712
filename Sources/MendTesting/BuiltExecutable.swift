public import Foundation

/// Finds the package's built executables (`mend`, `mend-server`) next to the running test bundle, for tests that run
/// them as a user would.
public enum BuiltExecutable {
    /// The executable `name` in the build products folder, or `nil` when it has not been built.
    public static func url(named name: String) -> URL? {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
