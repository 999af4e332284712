import Foundation

/// The loopback redirect receiver's reading of a request head, as pure functions (fuzzed by `Fuzz/`).
///
/// ``parse(_:)`` is the rule the loopback redirect receiver applies to the bytes a connection sent so far: the head is
/// complete at its first empty line (CRLF or bare LF line ends, found in the raw bytes); only its request line is
/// decoded (a header in Latin-1 does not spoil it), and must be exactly `GET <target> HTTP/1.x`, single spaces.
///
/// `@_spi(MendFuzzing)`: not part of Mend's public API.
@_spi(MendFuzzing) public enum LoopbackRequestHead {
    /// What the bytes read so far say.
    public enum Parsed: Sendable, Hashable {
        /// The head is not complete: read more.
        case incomplete
        /// The head is complete and its request line is not `GET <target> HTTP/1.x`: answer 400.
        case refused
        /// The request target of a complete `GET` head.
        case target(String)
    }

    /// Reads the request head in `bytes` (everything read from the connection so far).
    public static func parse(_ bytes: some Collection<UInt8>) -> Parsed {
        let bytes = Array(bytes)
        guard let end = headEnd(bytes) else { return .incomplete }
        let lineEnd = bytes[..<end].firstIndex(of: 0x0A) ?? end
        var line = bytes[..<lineEnd]
        if line.last == 0x0D { line = line.dropLast() }
        // Not String(validating:as:), which needs iOS 18: a decoded line that does not encode back to the same
        // bytes held something that is not UTF-8 (it was replaced by U+FFFD).
        let text = String(decoding: line, as: UTF8.self)
        guard text.utf8.elementsEqual(line) else { return .refused }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "GET", parts[2].hasPrefix("HTTP/1."), !parts[1].isEmpty,
            !parts[1].contains(where: { $0.isNewline || $0 == "\r" })
        else { return .refused }
        return .target(String(parts[1]))
    }

    /// Where the head ends (the index of the line feed that ends its last line), if it is complete.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index }
            }
            index += 1
        }
        return nil
    }

    /// The request target of a complete `GET` head in `bytes`, or `nil` (incomplete or refused).
    public static func target(fromHead bytes: some Collection<UInt8>) -> String? {
        if case .target(let target) = parse(bytes) { return target }
        return nil
    }

    /// The receiver's decision about a request target (``LoopbackRequestCheck``), for the fuzzers.
    public enum Decision: Sendable, Hashable {
        /// The expected path with the expected state.
        case accept
        /// Another path (404).
        case wrongPath
        /// The expected path without the expected state (400).
        case wrongState
    }

    /// What the receiver decides about `target` when it waits at `path` for `state`.
    public static func check(target: String, path: String, state: String) -> Decision {
        switch LoopbackRequestCheck.check(target: target, path: path, state: state) {
        case .accept: .accept
        case .wrongPath: .wrongPath
        case .wrongState: .wrongState
        }
    }
}
