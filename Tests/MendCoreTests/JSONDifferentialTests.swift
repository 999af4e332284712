import Foundation
import MendClientTesting
import Testing

@testable import MendCore

/// Mend's one JSON lexer read beside two parsers nobody here wrote — Foundation's `JSONDecoder` and Python's `json` —
/// over a corpus and seeded mutations of it. Where a text is read by two of them, they read the same value; every
/// other disagreement falls in a class named here, and each class is seen:
///
/// - a member named twice: Mend refuses it (or reads the last one when asked), Foundation reads the first, Python the
///   last;
/// - `NaN`, `Infinity` and numbers beyond `Double`'s range: Python reads them, Mend and Foundation refuse them;
/// - a lone surrogate escape (`"\ud800"`): Python reads it, Mend refuses it (a string must be Unicode);
/// - integers beyond 64 bits: Python reads them exactly, Mend and Foundation as the nearest `Double`;
/// - nesting deeper than Mend's bound (256): Python and Foundation read it;
/// - a trailing comma in an array (`[1,]`) and a UTF-8 byte order mark before the text: Foundation reads them (RFC 8259
///   allows neither: §5, §8.1), Mend and Python refuse them;
/// - a member Foundation drops as a duplicate is not checked: `{"a":1,"a":2E}` reads as `{"a":1}` (its values are
///   checked only when read), which Mend and Python refuse;
/// - an integer written with a fraction or an exponent, or `Int.min`: Foundation's reading of `Int` has rules of its
///   own (`-9223372036854775808` and `1.2345678901234568e17` read as `Double`s, `1e15` as an integer); Mend reads
///   a number whose value is an integer that fits in `Int` as that integer, the same number either way;
/// - a NUL byte: Foundation stops at one after a value (`5\0` reads as `5`) and reads one unescaped in a string
///   (RFC 8259 §7: control characters must be escaped); Mend and Python refuse both.
@Suite("JSON: Mend's lexer beside Foundation and Python")
struct JSONDifferentialTests {
    /// The classes of named disagreements.
    enum Named: String, CaseIterable {
        case duplicates, nonFinite, loneSurrogate, bigInteger, deep, trailingComma, byteOrderMark, numberForm, nulByte
        case uncheckedDuplicate
    }

    static let corpus: [String] =
        StructureCheckTests.corpus + [
            #"{"a":1,"a":2}"#, #"{"sub":"alice","aud":"app","sub":"mallory"}"#, #"[{"k":[1],"k":{"x":null}}]"#,
            "[NaN]", "[Infinity]", "[-Infinity]", #"{"n":1e400}"#, "[-1e999]",
            #"["\ud800"]"#, #"["a\udc00b"]"#, #"{"\udbff":1}"#,
            "[18446744073709551616]", "[-9223372036854775809]", "[123456789012345678901234567890]",
            "[9223372036854775807,-9223372036854775808]", "[1.0,-0,0.5e1,1E+2,2.5e-3]",
            #"["\u0000\u001f\u007f\u00e9\ud83d\ude00"]"#, "[7]\u{0}", "[\"a\u{0}b\"]", "\u{FEFF}[1]", " \t\n\r[ ] \n",
            "[1,]",
            #"[[2, ],{"a":[3 , ]}]"#,
        ]

    /// What one reader made of a text: a value, as compact text, or a refusal.
    enum Reading: Equatable {
        case value(String)
        case refused(String)

        var isValue: Bool {
            if case .value = self { return true }
            return false
        }
    }

    static func mend(_ data: Data, _ duplicates: JSONValue.DuplicateMembers) -> Reading {
        switch JSONValue.parse(data, duplicateMembers: duplicates) {
        case .success(let value): .value(value.jsonText())
        case .failure(let failure): .refused("\(failure)")
        }
    }

    static func foundation(_ data: Data) -> Reading {
        do {
            return .value(try JSONDecoder().decode(JSONValue.self, from: data).jsonText())
        } catch {
            return .refused("\(type(of: error))")
        }
    }

    /// Python's answer for one text (Tests/PythonClients/json_oracle.py).
    struct PythonReading: Decodable {
        var ok: Bool
        var equal: Bool
        var flags: [String]
    }

    /// The Python to ask: scripts/test's (`MEND_TEST_PYTHON`), else `python3` on the path.
    static let python: String? = {
        if let configured = ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"] { return configured }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/python3" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Asks Python about every text at once.
    static func askPython(_ texts: [Data], mendReadings: [Reading]) async throws -> [PythonReading] {
        var input = Data()
        for (text, reading) in zip(texts, mendReadings) {
            let mend: JSONValue = if case .value(let value) = reading { .string(value) } else { .null }
            let line: JSONValue = .object([
                "hex": .string(Self.hex(text)), "mend": mend,
            ])
            input.append(contentsOf: line.jsonText().utf8)
            input.append(0x0A)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PythonClients/json_oracle.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = [script.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        async let output = BlockingWork.run { stdout.fileHandleForReading.readDataToEndOfFile() }
        let written = input
        await BlockingWork.run {
            stdin.fileHandleForWriting.write(written)
            try? stdin.fileHandleForWriting.close()
        }
        let lines = await output
        await process.exited()
        #expect(process.terminationStatus == 0)
        return try String(decoding: lines, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(PythonReading.self, from: Data($0.utf8))
        }
    }

    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The corpus and 4,000 seeded mutations of it.
    static func texts() -> [Data] {
        corpus.map { Data($0.utf8) }
            + jsonMutations(
                of: corpus, count: 4_000, seed: 20_261_128,
                alphabet: Array(#"{}[]:,"\\/ -+.eE0123456789abfnrtuINAZ"#.utf8) + [0x00, 0x0A, 0x1F, 0xC3, 0xFF]
            ).map { Data($0) }
    }

    @Test(
        "Foundation: every text Mend reads, Foundation reads the same; a refusal of Mend's that Foundation reads is named"
    )
    func foundationAgrees() {
        var seen: Set<Named> = []
        var agreed = 0
        for text in Self.texts() {
            let label = String(decoding: text.prefix(80), as: UTF8.self)
            let mend = Self.mend(text, .refuse)
            let foundation = Self.foundation(text)
            switch (mend, foundation) {
            case (.value(let read), .value(let other)) where read != other:
                // The same numbers, one reader's integer the other's Double.
                #expect(Self.numericallyEqual(read, other), "\(label)")
                seen.insert(.numberForm)
            case (.value, _):
                #expect(foundation == mend, "\(label)")
                agreed += 1
            case (.refused(let failure), .value(let read))
            where failure.hasPrefix("duplicateMember") && Self.mend(text, .lastWins).isValue:
                // Foundation reads the first member of each name; Mend, asked for the last, reads the last.
                seen.insert(.duplicates)
                if let first = Self.firstWins[String(decoding: text, as: UTF8.self)] {
                    #expect(read == first, "\(label)")
                    #expect(Self.mend(text, .lastWins) != .value(read), "\(label)")
                }
            case (.refused(let failure), .value) where failure.hasPrefix("tooDeep"):
                seen.insert(.deep)
            case (.refused, .value) where text.contains(0):
                seen.insert(.nulByte)
            case (.refused, .value) where Self.namesAMemberTwice(text):
                seen.insert(.uncheckedDuplicate)
            case (.refused, .value(let read)) where text.starts(with: [0xEF, 0xBB, 0xBF]):
                // What Foundation reads is what follows the mark.
                seen.insert(.byteOrderMark)
                #expect(Self.mend(text.dropFirst(3), .refuse) == .value(read), "\(label)")
            case (.refused, .value(let read)) where Self.withoutTrailingCommas(text) != text:
                // What Foundation reads is the array without the comma.
                seen.insert(.trailingComma)
                #expect(Self.mend(Self.withoutTrailingCommas(text), .refuse) == .value(read), "\(label)")
            case (.refused(let failure), .value(let read)):
                Issue.record(
                    "Foundation reads what Mend refuses (\(failure)) as \(read), in no named class: \(label) (\(Self.hex(text)))"
                )
            case (.refused, .refused):
                agreed += 1
            }
        }
        #expect(agreed > 2_000, "enough texts compared (\(agreed))")
        #expect(
            seen == [.duplicates, .deep, .trailingComma, .byteOrderMark, .numberForm, .nulByte, .uncheckedDuplicate])
    }

    @Test(
        "Python: every text Mend reads, Python reads the same; every disagreement falls in a named class, each seen",
        .enabled(if: python != nil, "no python3 on the path and no MEND_TEST_PYTHON"))
    func pythonAgrees() async throws {
        let texts = Self.texts()
        let mend = texts.map { Self.mend($0, .refuse) }
        let lastWins = texts.map { Self.mend($0, .lastWins) }
        let python = try await Self.askPython(texts, mendReadings: lastWins)
        try #require(python.count == texts.count)
        var seen: Set<Named> = []
        for index in texts.indices {
            let label = String(decoding: texts[index].prefix(80), as: UTF8.self)
            let answer = python[index]
            let flags = Set(answer.flags)
            switch mend[index] {
            case .value:
                if flags.contains("bigint") {
                    // Python keeps every digit; Mend (as Foundation) the nearest Double.
                    seen.insert(.bigInteger)
                } else {
                    #expect(answer.ok && answer.equal, "Python reads otherwise: \(label)")
                }
            case .refused(let failure) where failure.hasPrefix("duplicateMember") && lastWins[index].isValue:
                // Python reads the last member of each name, as Mend does when asked to.
                seen.insert(.duplicates)
                #expect(answer.ok && (answer.equal || !flags.isEmpty), "\(label)")
            case .refused(let failure):
                guard answer.ok else { continue }
                if flags.contains("nonfinite") { seen.insert(.nonFinite) }
                if flags.contains("surrogate") { seen.insert(.loneSurrogate) }
                if flags.contains("deep") { seen.insert(.deep) }
                #expect(
                    !flags.subtracting(["bigint"]).isEmpty,
                    "Python reads what Mend refuses (\(failure)), in no named class: \(label)")
            }
        }
        #expect(seen == [.duplicates, .nonFinite, .loneSurrogate, .bigInteger, .deep])
    }

    /// Whether two readings hold the same values, every number compared as a `Double`.
    static func numericallyEqual(_ first: String, _ second: String) -> Bool {
        func equal(_ first: JSONValue, _ second: JSONValue) -> Bool {
            switch (first, second) {
            case (.array(let one), .array(let other)):
                return one.count == other.count && zip(one, other).allSatisfy(equal)
            case (.object(let one), .object(let other)):
                return one.keys == other.keys && one.allSatisfy { equal($0.value, other[$0.key]!) }
            default:
                if let one = first.number, let other = second.number { return one == other }
                return first == second
            }
        }
        guard case .success(let one) = JSONValue.parse(Data(first.utf8)),
            case .success(let other) = JSONValue.parse(Data(second.utf8))
        else { return false }
        return equal(one, other)
    }

    /// Whether some member name occurs twice in `text` (read roughly: any string followed by `:`, outside strings).
    static func namesAMemberTwice(_ text: Data) -> Bool {
        var names: Set<[UInt8]> = []
        let bytes = Array(text)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == 0x22 else {
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, bytes[end] != 0x22 { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
            let name = Array(bytes[min(index + 1, bytes.count)..<min(end, bytes.count)])
            index = end + 1
            if bytes[min(index, bytes.count)...].first(where: { !JSONReader.isWhitespace($0) }) == UInt8(ascii: ":"),
                !names.insert(name).inserted
            {
                return true
            }
        }
        return false
    }

    /// `text` without the commas that end an array (`,` then whitespace then `]`), outside strings.
    static func withoutTrailingCommas(_ text: Data) -> Data {
        var kept: [UInt8] = []
        var inString = false
        var escaped = false
        let bytes = Array(text)
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
            } else if byte == 0x22 {
                inString = true
            } else if byte == UInt8(ascii: ","),
                bytes[(index + 1)...].first(where: { !JSONReader.isWhitespace($0) }) == UInt8(ascii: "]")
            {
                continue
            }
            kept.append(byte)
        }
        return Data(kept)
    }

    /// The corpus's duplicates as Foundation reads them: the first member of each name.
    static let firstWins: [String: String] = [
        #"{"a":1,"a":2}"#: #"{"a":1}"#,
        #"{"sub":"alice","aud":"app","sub":"mallory"}"#: #"{"aud":"app","sub":"alice"}"#,
        #"[{"k":[1],"k":{"x":null}}]"#: #"[{"k":[1]}]"#,
    ]
}

extension JSONValue {
    /// The number, when this is one (no coercion from strings).
    fileprivate var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
