import Foundation
import Testing

/// What MendServer's source may not do, read from the source itself.
@Suite("The server's shape")
struct ServerShapeTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MendServer")

    static func swiftFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        return try enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test("No downcast chooses a login's path: Facebook is a provider like the others")
    func noFacebookDowncast() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 20, "the sources were not found at \(Self.sources.path)")
        for (path, text) in files {
            for pattern in ["is FacebookCodeLogin", "as? FacebookCodeLogin", "as! FacebookCodeLogin"] {
                #expect(!text.contains(pattern), "\(path): \(pattern)")
            }
        }
    }
}
