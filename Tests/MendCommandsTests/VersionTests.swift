import Foundation
import MendCore
import Testing

/// One version, in one place (`MendVersion.current`): what the tools print, the changelog's latest section and the
/// version the README's install snippet asks for.
@Suite("One version", .enabled(if: MendBinary.url != nil))
struct VersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("mend --version and mend-server --version print MendVersion.current")
    func toolsPrintIt() async throws {
        for executable in ["mend", "mend-server"] {
            let run = try await MendBinary.run(["--version"], executable: executable)
            #expect(run.status == 0, "\(executable): \(run.stderr)")
            #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == MendVersion.current, "\(executable)")
        }
    }

    @Test("CHANGELOG.md's latest section and the README's install snippet name MendVersion.current")
    func documentsNameIt() throws {
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let latest = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        #expect(latest.hasPrefix("## \(MendVersion.current) ") || latest == "## \(MendVersion.current)", "\(latest)")
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippet = #".package(url: "https://github.com/mend-swift/mend.git", from: "\#(MendVersion.current)")"#
        #expect(readme.contains(snippet), "README.md's install snippet asks for another version")
    }
}
