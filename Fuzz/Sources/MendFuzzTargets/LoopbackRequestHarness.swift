import Foundation
import MendCore
@_spi(MendFuzzing) import MendLogin

/// The loopback receiver's request handling: `LoopbackRequestHead.parse` on the bytes read, then the receiver's check
/// (`LoopbackRequestCheck`) of the target it found, and of the whole input as a target.
///
/// Invariants: a target has no spaces or line breaks and round-trips through a request line; every redirect that
/// `RedirectParser` accepts is one the receiver accepts (else the receiver would turn away a valid login); an
/// accepted target has the exact path.
enum LoopbackRequestHarness {
    static let path = "/callback"
    static let state = RedirectHarness.state

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let input = Array(bytes)
        let parsed = LoopbackRequestHead.parse(input)
        if case .target(let target) = parsed {
            invariant(!target.isEmpty, "an empty target")
            invariant(!target.contains(" ") && !target.contains(where: \.isNewline), "a target with a separator")
            let again = LoopbackRequestHead.parse(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            invariant(again == parsed, "the target \(target) does not round-trip: \(again)")
            invariant(LoopbackRequestHead.target(fromHead: input) == target, "target(fromHead:) disagrees")
        } else {
            invariant(LoopbackRequestHead.target(fromHead: input) == nil, "target(fromHead:) disagrees")
        }
        // The whole input as a target, as if a request line had carried it.
        let target = bytes.text
        checkTarget(target)
        if case .target(let parsedTarget) = parsed, parsedTarget != target { checkTarget(parsedTarget) }
    }

    static func checkTarget(_ target: String) {
        let decision = LoopbackRequestHead.check(target: target, path: path, state: state)
        if decision == .accept {
            invariant(
                target == path || target.hasPrefix(path + "?") || target.hasPrefix(path + "#"), "accepted \(target)")
        }
        guard target.hasPrefix("/"), !target.contains("#") else { return }
        let redirect = "http://127.0.0.1:8765" + target
        if (try? RedirectParser.parse(redirect, transaction: RedirectHarness.transaction)) != nil {
            invariant(decision == .accept, "the parser accepts \(redirect) but the receiver says \(decision)")
        }
    }
}
