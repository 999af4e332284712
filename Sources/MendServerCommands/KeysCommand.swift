import ArgumentParser
import Foundation
import MendServer

/// `mend-server keys`: the session signing keys of the configuration and their states, never a private key.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Show the signing keys of the configuration and their states (next, current, retired).",
        discussion: """
            Reads the configuration as serve does (MEND_SIGNING_KEYS or MEND_SIGNING_KEYS_FILE) and prints one line \
            per key: its id, algorithm, state and what it does. No private key is printed. Rotation: add the new \
            key as next and roll it out; make it current and the old one retired and roll that out; once the old \
            key's tokens have expired (MEND_ACCESS_TOKEN_TTL), remove it.
            """)

    func run() throws {
        let configuration = try ServerCommandSupport.loadConfiguration(try ListeningOptions.parse([]))
        let keys = configuration.sessions.signingKeys
        guard !keys.isEmpty else {
            print("no signing keys: serve makes a random one at each start (set MEND_SIGNING_KEYS)")
            return
        }
        let signing = keys.firstIndex { $0.state == .current }
        let width = keys.map(\.keyID.count).max() ?? 0
        for (index, key) in keys.enumerated() {
            let role: String =
                switch key.state {
                case .next: "published and accepted; make it current once every instance has it"
                case .current where index == signing: "signs; published and accepted"
                case .current: "published and accepted (another current key signs)"
                case .retired:
                    "published and accepted; remove it once its tokens have expired "
                        + "(MEND_ACCESS_TOKEN_TTL after it stopped signing)"
                }
            let id = key.keyID.padding(toLength: width, withPad: " ", startingAt: 0)
            let algorithm = key.algorithm.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)
            let state = key.state.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            print("\(id)  \(algorithm)  \(state)  \(role)")
        }
    }
}
