import Foundation
import MendClientTesting
import MendCore
import MendJOSE
import Testing

/// cbor2 (Python, through `MEND_TEST_PYTHON`; `Tests/PythonClients/cbor_oracle.py`) as a second decoder of the same
/// inputs: RFC 8949 appendix A, the W3C's attestation objects, random items in deterministic and non-preferred
/// encodings, and seeded byte mutations of all of them. Under the subset's rule: what Mend reads, cbor2 reads to the
/// same item, inside the subset; what cbor2 reads inside the subset, Mend reads; what Mend refuses as outside the
/// subset, cbor2 finds outside it for a reason (or refuses, when it is also cut off further on); what Mend refuses as
/// malformed, cbor2 refuses too.
/// scripts/test's Python, with cbor2 (`MEND_TEST_PYTHON`).
let cborOraclePython = ProcessInfo.processInfo.environment["MEND_TEST_PYTHON"]

@Suite(
    "CBOR: cbor2 as a differential oracle",
    .enabled(
        if: cborOraclePython != nil, "MEND_TEST_PYTHON names no Python with cbor2 (scripts/test sets it)"))
struct CBORDifferentialTests {
    struct Answer: Decodable {
        var ok: Bool
        var notation: String?
        var outside: String?
    }

    @Test("Mend and cbor2 agree on every input, under the subset's rule")
    func agree() async throws {
        let inputs = Self.inputs()
        let answers = try await Self.ask(inputs)
        try #require(answers.count == inputs.count)
        var read = 0
        var outside = 0
        for (input, answer) in zip(inputs, answers) {
            let label = hex(input)
            do {
                let value = try CBOR.decode(input)
                read += 1
                #expect(answer.ok && answer.outside == nil, "Mend read what cbor2 refuses or finds outside: \(label)")
                #expect(answer.notation == notation(value), "another item: \(label)")
            } catch {
                switch error.kind {
                case .malformed:
                    #expect(!answer.ok, "Mend refused as malformed what cbor2 read: \(label) (\(error.reason))")
                case .unsupported, .duplicateKey, .tooLarge:
                    // Mend stops at the first rule an input breaks: one outside the subset may also be cut off later,
                    // which cbor2 then refuses. What cbor2 reads must be outside the subset for a reason.
                    outside += 1
                    #expect(!answer.ok || answer.outside != nil, "Mend refused as outside the subset: \(label)")
                }
            }
        }
        // The inputs reach every side of the rule.
        #expect(read > 1_000 && outside > 100, "read \(read), outside \(outside)")
    }

    /// The inputs: the seeds, random items, and 3,000 seeded mutations.
    static func inputs() -> [[UInt8]] {
        var seeds =
            (try? JSONDecoder().decode([CBORTests.Case].self, from: vectors("rfc8949-appendix-a")))?
            .map { bytes(hex: $0.hex) } ?? []
        if let data = try? vectors("w3c-webauthn-test-vectors"),
            let vectors = try? JSONValue.parse(data).get().objectValue
        {
            seeds += vectors.values.compactMap { $0["registration"]?["attestationObject"]?.stringValue }
                .map { bytes(hex: $0) }
        }
        var generator = SplitMix64(seed: 20_261_129)
        for _ in 0..<600 {
            let value = randomItem(&generator, depth: 0)
            seeds.append(CBOR.encode(value))
            seeds.append(nonPreferred(CBOR.encode(value), &generator))
        }
        var mutated: [[UInt8]] = []
        for round in 0..<3_000 {
            var input = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let position = input.isEmpty ? 0 : Int(generator.next() % UInt64(input.count))
                let byte = UInt8(truncatingIfNeeded: generator.next())
                switch generator.next() % 4 {
                case 0 where !input.isEmpty: input[position] = byte
                case 1: input.insert(byte, at: position)
                case 2 where !input.isEmpty: input.remove(at: position)
                default: input = Array(input.prefix(position))
                }
            }
            mutated.append(input)
        }
        return seeds + mutated
    }

    /// A random item of the subset, up to four levels deep.
    static func randomItem(_ generator: inout SplitMix64, depth: Int) -> CBORValue {
        switch generator.next() % (depth >= 3 ? 6 : 8) {
        case 0: return .unsigned(generator.next() >> (generator.next() % 64))
        case 1: return .negative(generator.next() >> (generator.next() % 64))
        case 2: return .bytes((0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        case 3:
            return .text(
                String((0..<Int(generator.next() % 12)).map { _ in "aé水😀-".randomElement(using: &generator)! }))
        case 4: return [.bool(true), .bool(false), .null][Int(generator.next() % 3)]
        case 5: return .float(Double(bitPattern: generator.next()).isNaN ? 1.5 : Double(bitPattern: generator.next()))
        case 6:
            return .array((0..<Int(generator.next() % 5)).map { _ in randomItem(&generator, depth: depth + 1) })
        default:
            var entries: [(key: CBORValue, value: CBORValue)] = []
            var keys = Set<CBORValue>()
            for _ in 0..<Int(generator.next() % 5) {
                let key: CBORValue =
                    generator.next() % 2 == 0
                    ? .integer(Int64(generator.next() % 40) - 20) : .text("k\(generator.next() % 9)")
                if keys.insert(key).inserted { entries.append((key, randomItem(&generator, depth: depth + 1))) }
            }
            return .map(CBORMap(entries)!)
        }
    }

    /// `encoded` with one head widened where it can be (a one-byte argument written in two): well-formed CBOR that is
    /// not the preferred encoding, which Mend reads as any decoder does.
    static func nonPreferred(_ encoded: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
        guard let first = encoded.first, first >> 5 < 6, first & 0x1F < 24 else { return encoded }
        return [first & 0xE0 | 24, first & 0x1F] + encoded.dropFirst()
    }

    static func ask(_ inputs: [[UInt8]]) async throws -> [Answer] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PythonClients/cbor_oracle.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(cborOraclePython))
        process.arguments = [script.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        async let output = BlockingWork.run { stdout.fileHandleForReading.readDataToEndOfFile() }
        var written = Data()
        for input in inputs { written.append(contentsOf: #"{"hex":"\#(hex(input))"}"#.utf8 + [0x0A]) }
        let lines = written
        await BlockingWork.run {
            stdin.fileHandleForWriting.write(lines)
            try? stdin.fileHandleForWriting.close()
        }
        let data = await output
        await process.exited()
        #expect(process.terminationStatus == 0, "cbor_oracle.py failed (is cbor2 installed?)")
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Answer.self, from: Data($0.utf8))
        }
    }
}
