import Foundation
import Logging
import Testing

@testable import MendServer

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

    // MARK: What each part holds

    /// The types no part may hold whole: every store, the whole configuration, the backend (which holds both).
    static let wholes = ["ServerStore", "ServerConfiguration", "BackendContext", "LoginBackend"]

    /// The paths under `value`'s stored properties (to `depth` levels, through existentials and optionals) whose
    /// value is one of ``wholes``.
    static func wholes(in value: Any, path: String, depth: Int = 4) -> [String] {
        var found: [String] = []
        let mirror = Mirror(reflecting: value)
        guard mirror.children.count <= 64 else { return [] }  // a cache or a table, not a part's fields
        for child in mirror.children {
            let childPath = path + "." + (child.label ?? "_")
            let typeName = String(describing: type(of: child.value))
            if wholes.contains(where: { typeName == $0 || typeName == "Optional<\($0)>" }) {
                found.append("\(childPath): \(typeName)")
            } else if depth > 0 {
                found += Self.wholes(in: child.value, path: childPath, depth: depth - 1)
            }
        }
        return found
    }

    @Test("No part of the backend holds the whole store, the whole configuration or the backend")
    func partsHoldWhatTheyUse() async throws {
        let backend = try await LoginBackend.open(
            configuration: OperationsTests.offlineConfiguration(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let parts: [(String, any BackendPart)] = [
            ("sessions", backend.sessions), ("logins", backend.logins), ("accounts", backend.accounts),
            ("callbacks", backend.callbacks), ("housekeeping", backend.housekeeping),
            ("administration", backend.administration),
        ]
        for (name, part) in parts {
            let found = Self.wholes(in: part, path: name)
            #expect(found.isEmpty, "\(found)")
        }
        // The positive control: the backend, which assembles the parts, holds the store and the configuration, and
        // the search finds them (the same search through a part of it finds a whole in a nested field).
        let control = Self.wholes(in: backend, path: "backend", depth: 0)
        #expect(control.contains("backend.store: ServerStore"), "\(control)")
        #expect(control.contains("backend.configuration: ServerConfiguration"), "\(control)")
        struct Nested { let inner: (label: String, store: ServerStore) }
        #expect(Self.wholes(in: Nested(inner: ("x", backend.store)), path: "n") == ["n.inner.store: ServerStore"])
        await backend.close()
    }

    // MARK: Sizes

    /// The lines of each type's body, summed over its declaration and every extension of it in MendServer.
    static func typeSizes() throws -> [String: Int] {
        let declaration = try Regex(
            #"^(?:(?:public|package|internal|private|fileprivate|final|@\w+(?:\([^)]*\))?)\s+)*(?:struct|class|actor|enum|extension|protocol)\s+([A-Za-z_]\w*)"#
        )
        var sizes: [String: Int] = [:]
        for (_, text) in try swiftFiles() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                guard let match = lines[index].firstMatch(of: declaration), let name = match.output[1].substring
                else {
                    index += 1
                    continue
                }
                var depth = 0
                var started = false
                var end = index
                while end < lines.count {
                    let code = Self.code(of: lines[end])
                    depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
                    if code.contains("{") { started = true }
                    if started && depth <= 0 { break }
                    end += 1
                }
                sizes[String(name), default: 0] += end - index + 1
                index = end + 1
            }
        }
        return sizes
    }

    /// A line without its string literals and its comment: what braces count in.
    static func code(of line: Substring) -> String {
        var result = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if character == "\"" && previous != "\\" {
                inString.toggle()
            } else if !inString {
                if character == "/" && previous == "/" {
                    result.removeLast()
                    break
                }
                result.append(character)
            }
            previous = character
        }
        return result
    }

    @Test("No type in MendServer is over 500 lines, its extensions counted with it")
    func noTypeOver500Lines() throws {
        let sizes = try Self.typeSizes()
        #expect((sizes["SessionAuthority"] ?? 0) > 200, "the count found too little: \(sizes.count) types")
        let over = sizes.filter { $0.value > 500 }.sorted { $0.value > $1.value }
        #expect(over.isEmpty, "\(over.map { "\($0.key): \($0.value) lines" })")
    }
}
