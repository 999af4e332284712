import ArgumentParser
import Foundation
import MendHTTP
import MendResponseStore

/// `--max-stale`: keep the answer, and stand in with it for a transient failure up to this age.
struct MaxStaleOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep the answer, and show it (marked stale) when a later call fails transiently: no network, a timeout, a 5xx, a 429 — up to this age (90s, 15m, 2h, 7d).",
            discussion: "Only for the session of `mend login`: answers are kept per user and deleted at logout."))
    var maxStale: String?

    func validate() throws {
        if let maxStale, Self.duration(maxStale) == nil {
            throw ValidationError("--max-stale takes an age such as 90s, 15m, 2h or 7d, not '\(maxStale)'.")
        }
    }

    /// The age, when given.
    var duration: Duration? { maxStale.flatMap(Self.duration) }

    /// `90`, `90s`, `15m`, `2h`, `7d`.
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        var unit: Int64 = 1
        if let last = digits.last, let seconds = units[last] {
            unit = seconds
            digits = digits.dropLast()
        }
        guard let count = Int64(digits), count >= 0, count <= 366 * 86_400 / unit else { return nil }
        return .seconds(count * unit)
    }

    /// The store the answers are kept in for the session in `stateDirectory`, when `--max-stale` is given; with a
    /// token instead of a session nothing can be kept (no user to key it by), which standard error says.
    func lastKnownGood(stateDirectory: String?, hasSession: Bool) -> LastKnownGood? {
        guard duration != nil else { return nil }
        guard hasSession else {
            StandardError.write(
                "note: --max-stale keeps answers only for the session of `mend login`; with a token nothing is kept.")
            return nil
        }
        return LastKnownGood(store: LoginProfile.answers(directory: LoginProfile.directory(stateDirectory)))
    }
}
