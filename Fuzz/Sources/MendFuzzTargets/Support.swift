import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendLogin

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Aborts, naming the broken invariant, when `condition` is false: libFuzzer reports a crash and keeps the input.
func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    guard !condition() else { return }
    FileHandle.standardError.write(Data("INVARIANT BROKEN (\(file):\(line)): \(message())\n".utf8))
    abort()
}

/// MEND_FUZZ_VERBOSE=1: the harnesses print each outcome (to check what seeds reach, with `-runs=0`).
let verbose = getenv("MEND_FUZZ_VERBOSE") != nil

/// Prints `text` when ``verbose``.
func trace(_ text: @autoclosure () -> String) {
    if verbose { print(text()) }
}

/// The fixed clock of every harness (deterministic runs): 2027-01-15T08:00:00Z.
let fuzzNow = Date(timeIntervalSince1970: 1_800_000_000)

extension UnsafeRawBufferPointer {
    /// The bytes as `Data`.
    var data: Data { Data(self) }
    /// The bytes as text, invalid UTF-8 repaired as `String(decoding:as:)` does.
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// An HTTP response written as text, the seed format of the response targets:
///
/// ```
/// 400
/// Retry-After: 30
/// x-fb-trace-id: AbC
///
/// {"error": {…}}
/// ```
///
/// The first line is the status (100…599); header lines follow until an empty line; the rest is the body. An input
/// that does not start with a status line is a body alone, with status 200 and no headers.
struct ResponseInput {
    var status: Int
    /// The header lines whose names are valid field names, in order (values as HTTPTypes keeps them).
    var headers: [(name: String, value: String)]
    var fields: HTTPFields
    var body: Data

    var response: HTTPResponse { HTTPResponse(status: .init(code: status), headerFields: fields) }

    init(_ bytes: UnsafeRawBufferPointer) {
        let all = Array(bytes)
        var lines = Self.lines(all)
        status = 200
        headers = []
        fields = HTTPFields()
        body = Data(all)
        guard let first = lines.next(), first.line.count == 3, first.line.allSatisfy({ (0x30...0x39).contains($0) }),
            let code = Int(String(decoding: first.line, as: UTF8.self)), (100...599).contains(code)
        else { return }
        status = code
        body = Data(all[first.end...])
        while let next = lines.next() {
            body = Data(all[next.end...])
            if next.line.isEmpty { break }
            guard let colon = next.line.firstIndex(of: UInt8(ascii: ":")),
                let name = HTTPField.Name(String(decoding: next.line[..<colon], as: UTF8.self))
            else { continue }
            let value = String(decoding: next.line[(colon + 1)...], as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            let field = HTTPField(name: name, value: value)
            fields.append(field)
            headers.append((name: field.name.rawName, value: field.value))
        }
    }

    /// The lines of `bytes` (without `\n` or `\r\n`), each with the index just past its end.
    private static func lines(_ bytes: [UInt8]) -> AnyIterator<(line: ArraySlice<UInt8>, end: Int)> {
        var start = 0
        return AnyIterator {
            guard start < bytes.count, let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                return nil
            }
            var line = bytes[start..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            start = newline + 1
            return (line, start)
        }
    }
}

/// The result of ``runBlocking(_:)``: written by the task before the semaphore is signalled, read after.
private final class BlockingBox<T>: @unchecked Sendable { var value: T? }

/// The work of ``runBlocking(_:)``, owned by its task only: its deinit tells that the task has released everything
/// the work captured (else LeakSanitizer could catch a capture between the task's answer and its end).
private final class BlockingWork<T: Sendable>: @unchecked Sendable {
    let body: @Sendable () async -> T
    let released: DispatchSemaphore

    init(_ body: @escaping @Sendable () async -> T, released: DispatchSemaphore) {
        self.body = body
        self.released = released
    }

    deinit { released.signal() }
}

/// Runs `body` to completion from libFuzzer's (synchronous) thread, and waits until its task let go of it.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = BlockingBox<T>()
    let done = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    Task { [work = BlockingWork(body, released: released)] in
        box.value = await work.body()
        done.signal()
    }
    done.wait()
    released.wait()
    return box.value!
}

/// Invariants every `MendError` a decoder returns keeps.
func checkDecodedError(
    _ error: MendError, by decoder: String, allowedDomains: Set<MendError.Domain>?, redactor: Redactor,
    secret: String
) {
    if let allowedDomains {
        invariant(allowedDomains.contains(error.domain), "\(decoder) returned a \(error.domain) error: \(error)")
    }
    // Waits are clamped: never in the past, never longer than a day.
    if let notBefore = error.recovery.notBefore {
        let wait = notBefore.timeIntervalSince(fuzzNow)
        invariant(wait >= 0 && wait <= RetryAfter.maximumDelay + 0.001, "\(decoder): a wait of \(wait) s")
    }
    // Bounded texts, whatever the body's size.
    invariant(error.developerMessage.utf8.count <= 16_384, "\(decoder): a developer message of unbounded size")
    invariant((error.referenceID?.utf8.count ?? 0) <= 8192, "\(decoder): an unbounded reference id")
    // The request's own secret (registered in the context's redactor) never reaches the attached excerpt.
    if let excerpt = error.response {
        invariant(!(excerpt.body ?? "").contains(secret), "\(decoder): the secret is in the excerpt's body")
        invariant(
            !excerpt.headers.values.contains { $0.contains(secret) }, "\(decoder): the secret is in a header")
    }
    // The wire shape round-trips, through its JSON text, to the same identity and classification.
    let text = error.wireBody.jsonText()
    guard case .success(let reparsed) = JSONValue.parse(Data(text.utf8)) else {
        invariant(false, "\(decoder): the wire body's JSON text does not parse: \(text)")
        return
    }
    invariant(reparsed == error.wireBody, "\(decoder): the wire body changed through its text: \(text)")
    guard let decoded = MendError(wireBody: reparsed, catalog: fuzzCatalog) else {
        invariant(false, "\(decoder): MendError(wireBody:) refused \(text)")
        return
    }
    invariant(decoded.code == error.code && decoded.subcode == error.subcode, "\(decoder): code changed: \(text)")
    invariant(decoded.category == error.category, "\(decoder): category changed: \(text)")
    invariant(decoded.referenceID == error.referenceID, "\(decoder): reference id changed: \(text)")
    invariant(decoded.recovery.permissions == error.recovery.permissions, "\(decoder): permissions changed")
    // Every rendering works; users always get a message.
    _ = error.description
    _ = error.shortDescription
    let locale = Locale(identifier: "en_US")
    invariant(!error.userMessage(locale: locale).isEmpty, "\(decoder): an empty user message")
    _ = error.userTitle(locale: locale)
    _ = error.recoverySuggestion(locale: locale)
    _ = error.recoveryOptions(locale: locale)
}

/// Every error space the decoders speak, as an app using them all would configure.
let fuzzCatalog = ErrorCatalog(spaces: [.login, .session, .graph, .rest, .graphQL, .http, .transport])
