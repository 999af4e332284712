import Foundation
import MendClientTesting
import MendCore
import MendGraphAPI
import Testing

/// An attempter that records its calls and answers with a fixed outcome.
final class RecordingAttempter: ErrorRecoveryAttempter {
    let outcome: Bool
    let calls = Locked<[(String, Int)]>([])

    init(outcome: Bool) { self.outcome = outcome }

    func attemptRecovery(from error: MendError, optionIndex: Int) async -> Bool {
        calls.withLock { $0.append((error.name, optionIndex)) }
        return outcome
    }

    var callCount: Int { calls.withLock { $0.count } }
}

@Suite("RecoverableError")
struct RecoveryTests {
    static func expiredToken(attempter: (any ErrorRecoveryAttempter)?) -> MendError {
        var error = MendError(code: .Graph.accessTokenInvalid, subcode: .tokenExpired, catalog: .everyClientSpace)
        error.recoveryAttempter = attempter
        return error
    }

    @Test("Attempting recovery calls the injected attempter with the picked option")
    func callsAttempter() async {
        let attempter = RecordingAttempter(outcome: true)
        let error = Self.expiredToken(attempter: attempter)
        #expect(error.recoveryOptions(locale: Locale(identifier: "en")) == ["Log In", "Cancel"])
        #expect(await error.attemptRecovery(optionIndex: 0))
        #expect(attempter.calls.withLock { $0.map(\.0) } == ["tokenExpired"])
    }

    @Test("The cancel option, a missing attempter, an out-of-range option and `other` errors attempt nothing")
    func attemptsNothing() async {
        let attempter = RecordingAttempter(outcome: true)
        let error = Self.expiredToken(attempter: attempter)
        #expect(!(await error.attemptRecovery(optionIndex: 1)))
        #expect(!(await error.attemptRecovery(optionIndex: 7)))
        #expect(!(await Self.expiredToken(attempter: nil).attemptRecovery(optionIndex: 0)))
        var other = MendError(code: .Graph.duplicatePost, catalog: .everyClientSpace)
        other.recoveryAttempter = attempter
        #expect(!(await other.attemptRecovery(optionIndex: 0)))
        #expect(attempter.callCount == 0)
    }

    @Test("The result-handler form calls its handler exactly once")
    func resultHandlerOnce() async {
        let attempter = RecordingAttempter(outcome: false)
        let error = Self.expiredToken(attempter: attempter)
        let results = Locked<[Bool]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            error.attemptRecovery(optionIndex: 0) { recovered in
                results.withLock { $0.append(recovered) }
                continuation.resume()
            }
        }
        #expect(results.withLock { $0 } == [false])
        #expect(attempter.callCount == 1)
    }

    @Test("The synchronous form waits for the attempter")
    func synchronousForm() {
        let attempter = RecordingAttempter(outcome: true)
        let error = Self.expiredToken(attempter: attempter)
        let recovered: Bool = error.attemptRecovery(optionIndex: 0)
        #expect(recovered)
        #expect(attempter.callCount == 1)
    }
}
