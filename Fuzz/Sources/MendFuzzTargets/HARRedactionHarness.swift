import Foundation
import MendCore
import MendRecording

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `HARRedaction.redact` (what `mend redact` runs) on a random HAR document built from the input (``HARBuilder``):
/// pages, entries, headers, cookies, queries, form, JSON and text bodies (base64 with and without padding), redirect
/// URLs, comments, WebSocket messages and `_`-prefixed fields at any depth, with secrets of every kind Mend knows
/// (``HARSecrets``) planted at random places in random encodings — raw, URL-encoded in a query, a fragment or a form,
/// in JSON, JSON inside a JSON string, base64 bodies, a `Basic` credential, a page title's URL.
///
/// Invariants:
/// - redaction either refuses (`transport/14`, the fail-closed refusal, whose message holds no planted secret), or
///   its output — the document's JSON text, and every base64 body decoded — holds none of the planted secrets in any
///   encoding (raw, URL-encoded, base64 with or without padding, base64url), and none of the random high-entropy
///   strings planted (adversarial mode: the scan must refuse them, not pass them);
/// - a document whose strings are only recognised secrets and plain low-entropy text (recognised mode, the first
///   byte even) is redacted, not refused: refusing everything fails;
/// - every field is kept: the redacted document has the same members and array lengths (values aside; `_mend` added);
/// - the document reads and writes back as it was (the typed HAR model keeps every field).
///
/// A violation names the secret's kind, how it was planted and where — never the secret. To look at one input:
/// `MEND_FUZZ_VERBOSE=1` prints the plants; `MEND_FUZZ_HAR_DUMP=<folder>` writes the generated HAR
/// (`input.har`) and the redacted one (`output.har`) or the refusal (`refusal.txt`); `MEND_FUZZ_HAR_REPLAY=1` reads
/// the input as a HAR file instead and prints what redaction makes of it. To fuzz past a known finding,
/// `MEND_FUZZ_HAR_SKIP='a,b&c'` skips the plants whose `kind # how @ place` contains `a`, or both `b` and `c` (and the
/// plain words and sentences that contain one).
enum HARRedactionHarness {
    static let skipped: [String] = {
        guard let value = getenv("MEND_FUZZ_HAR_SKIP") else { return [] }
        return String(cString: value).split(separator: ",").map(String.init)
    }()

    static let dumpFolder: URL? = getenv("MEND_FUZZ_HAR_DUMP").map { URL(fileURLWithPath: String(cString: $0)) }

    /// The harness's own assumptions about the vocabulary (checked once): every name it plants under is a secret
    /// name, every credential header a credential header, no plain key a secret name.
    static let vocabularyChecked: Bool = {
        let rules = RedactionRules.standard
        for name in HARSecrets.secretNames {
            invariant(rules.parameters.contains(name.lowercased()), "har-redaction: \(name) is not a secret name")
        }
        for header in HARSecrets.credentialHeaders {
            invariant(rules.headers.contains(header.lowercased()), "har-redaction: \(header) is no credential header")
        }
        for key in HARSecrets.keys + HARSecrets.extensionKeys + HARSecrets.words + ["headers", "_headers", "batch"] {
            invariant(!rules.parameters.contains(key.lowercased()), "har-redaction: the plain key \(key) is secret")
        }
        for header in HARSecrets.otherHeaders {
            invariant(!rules.headers.contains(header.lowercased()), "har-redaction: \(header) is a credential header")
        }
        return true
    }()

    /// MEND_FUZZ_HAR_REPLAY=1: the input is a HAR file, redacted as `mend redact` does; prints the outcome (to look at
    /// a finding's minimal HAR with the fuzzer's build).
    static let replaying = getenv("MEND_FUZZ_HAR_REPLAY") != nil

    static func run(_ bytes: UnsafeRawBufferPointer) {
        _ = vocabularyChecked
        let started = DispatchTime.now()
        if replaying {
            replay(bytes.data)
            return
        }
        let builder = HARBuilder(Array(bytes), skipped: skipped)
        let json = builder.document()
        let text = json.jsonText()
        let document: HARDocument
        do {
            document = try HARDocument(data: Data(text.utf8))
        } catch {
            invariant(false, "har-redaction: the generated document is not read as a HAR: \(error.developerMessage)")
            return
        }
        invariant(document.json == json, "har-redaction: the HAR model did not keep every field of the document")
        trace(
            "har-redaction (\(builder.mode.rawValue)): \(builder.plantings.count) plants, \(text.utf8.count) bytes, "
                + "made in \(milliseconds(since: started)) ms")
        for planting in builder.plantings { trace("  \(planting.what): \(planting.how) @ \(planting.place)") }
        if let dumpFolder {
            try? FileManager.default.createDirectory(at: dumpFolder, withIntermediateDirectories: true)
            try? document.data().write(to: dumpFolder.appendingPathComponent("input.har"))
        }

        let redacted: HARDocument
        do {
            redacted = try HARRedaction.redact(document)
        } catch {
            refused(error, builder: builder)
            return
        }
        if let dumpFolder { try? redacted.data().write(to: dumpFolder.appendingPathComponent("output.har")) }
        trace("har-redaction: redacted in \(milliseconds(since: started)) ms")
        let output = redacted.json.jsonText()
        // The redacted HAR's text, and each base64 body decoded: a secret must not survive inside one either.
        var texts: [(place: String, bytes: Data)] = [("the redacted HAR", Data(output.utf8))]
        for (index, entry) in redacted.entries.enumerated() {
            let content = entry.response.content
            guard content.isBase64, let text = content.text else { continue }
            guard let bytes = HARSecrets.decodeBase64(text) else {
                invariant(false, "har-redaction: the redacted base64 body of log.entries[\(index)] does not decode")
                return
            }
            texts.append(("the base64 body of log.entries[\(index)], decoded", bytes))
        }
        // Each distinct form once (the plants of one secret share theirs).
        var checked = Set<String>()
        for planting in builder.plantings {
            for form in planting.forms where checked.insert(form.text).inserted {
                for (place, bytes) in texts where contains(bytes, form.text) {
                    let plants = builder.plantings.filter { $0.what == planting.what }
                    let places = plants.prefix(4).map { "\($0.how) at \($0.place)" }.joined(separator: "; ")
                    if planting.what.hasPrefix("a random") {
                        invariant(
                            false,
                            "har-redaction: \(planting.what) planted \(planting.how) at \(planting.place) passed the "
                                + "fail-closed scan: it is in \(place), and redaction did not refuse")
                    } else {
                        invariant(
                            false,
                            "har-redaction: the \(planting.what) survived redaction: it is in \(place), "
                                + "\(form.encoding) (planted \(plants.count) times: \(places))")
                    }
                }
            }
        }
        trace("har-redaction: checked in \(milliseconds(since: started)) ms")
        invariant(
            skeleton(stripAnnotations(redacted.json)) == skeleton(document.json),
            "har-redaction: redaction did not keep every field (members or array lengths differ)")
    }

    static func replay(_ data: Data) {
        do {
            let redacted = try HARRedaction.redact(try HARDocument(data: data))
            print(String(decoding: redacted.data(), as: UTF8.self))
        } catch {
            print("refused (\(error.domain)/\(error.code.rawValue)): \(error.developerMessage)")
        }
    }

    /// A refusal: `transport/14`, naming no secret; never for a document of recognised secrets and plain text.
    static func refused(_ error: MendError, builder: HARBuilder) {
        let message = mask(error.developerMessage, builder)
        if let dumpFolder {
            try? Data(message.utf8).write(to: dumpFolder.appendingPathComponent("refusal.txt"))
        }
        trace("har-redaction: refused: \(message)")
        invariant(
            error.code == .Transport.recordingRefused,
            "har-redaction: redaction failed with \(error.domain)/\(error.code.rawValue), not transport/14: \(message)")
        for text in [error.developerMessage, error.description] {
            for planting in builder.plantings {
                if let form = planting.forms.first(where: { text.contains($0.text) }) {
                    invariant(
                        false,
                        "har-redaction: the refusal's message holds \(planting.what) planted \(planting.how) at "
                            + "\(planting.place) (\(form.encoding))")
                }
            }
        }
        invariant(
            builder.mode == .adversarial,
            "har-redaction: a document holding only recognised secrets and low-entropy text was refused: \(message)")
    }

    /// Whether `haystack` holds `needle`'s UTF-8.
    static func contains(_ haystack: Data, _ needle: String) -> Bool {
        haystack.range(of: Data(needle.utf8)) != nil
    }

    static func milliseconds(since start: DispatchTime) -> Int {
        Int((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000)
    }

    /// `text` with every planted form replaced by `<planted>`, for a message that may be printed.
    static func mask(_ text: String, _ builder: HARBuilder) -> String {
        var masked = text
        for planting in builder.plantings {
            for form in planting.forms { masked = masked.replacingOccurrences(of: form.text, with: "<planted>") }
        }
        return masked
    }

    /// The document's members and array lengths, values aside.
    static func skeleton(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.mapValues(skeleton))
        case .array(let elements): .array(elements.map(skeleton))
        default: .null
        }
    }

    /// The document without the entries' `_mend` annotation (the templates of the JWTs redaction replaced).
    static func stripAnnotations(_ value: JSONValue) -> JSONValue {
        guard case .object(var root) = value, case .object(var log)? = root["log"],
            case .array(let entries)? = log["entries"]
        else { return value }
        log["entries"] = .array(
            entries.map { entry in
                guard case .object(var members) = entry else { return entry }
                members["_mend"] = nil
                return .object(members)
            })
        root["log"] = .object(log)
        return .object(root)
    }
}
