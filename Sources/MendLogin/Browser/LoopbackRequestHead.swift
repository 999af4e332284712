import Foundation

/// The loopback redirect receiver's reading of a request head, as pure functions (fuzzed by `Fuzz/`).
///
/// ``parse(_:)`` is the rule ``LoopbackRedirectReceiver`` applies to the bytes read so far: the head is complete once
/// it is valid UTF-8 and contains an empty line; its request line must be `GET <target> HTTP/1.x`.
///
/// `@_spi(MendFuzzing)`: not part of Mend's public API.
@_spi(MendFuzzing) public enum LoopbackRequestHead {
    /// What the bytes read so far say.
    public enum Parsed: Sendable, Hashable {
        /// The head is not complete (or not yet valid UTF-8): read more.
        case incomplete
        /// The head is complete and is not a `GET` request line: answer 400.
        case refused
        /// The request target of a complete `GET` head.
        case target(String)
    }

    /// Reads the request head in `bytes` (everything read from the connection so far).
    public static func parse(_ bytes: some Collection<UInt8>) -> Parsed {
        guard let head = String(bytes: bytes, encoding: .utf8), head.contains("\r\n\r\n") || head.contains("\n\n")
        else { return .incomplete }
        // "\r\n" is one Character in Swift: split on newlines, not on "\r".
        let line = (head.split(whereSeparator: \.isNewline).first ?? "").split(separator: " ")
        guard line.count == 3, line[0] == "GET", line[2].hasPrefix("HTTP/1.") else { return .refused }
        return .target(String(line[1]))
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
