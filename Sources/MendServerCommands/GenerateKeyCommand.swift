import ArgumentParser
import Foundation
import MendServer

/// `mend-server generate-key [EdDSA|ES256]`: prints a new signing key for `MEND_SIGNING_KEYS`.
struct GenerateKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-key",
        abstract: "Print a new signing key for MEND_SIGNING_KEYS.",
        discussion: """
            Prints kid:ALG:key, the key id being k and today's date. To rotate, add it to MEND_SIGNING_KEYS as \
            next (kid:ALG:key:next) on every instance, then make it current and the old key retired, then remove \
            the old key once the tokens it signed have expired (mend-server keys shows the states).
            """)

    @Argument(help: "The algorithm: EdDSA or ES256 (any case).")
    var algorithm = "EdDSA"

    func validate() throws {
        guard Self.algorithm(named: algorithm) != nil else {
            throw ValidationError("unknown algorithm '\(algorithm)' (EdDSA, ES256)")
        }
    }

    func run() throws {
        guard let algorithm = Self.algorithm(named: algorithm) else { throw ExitCode.validationFailure }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd"
        let key = SigningKeyConfiguration.generate(keyID: "k\(formatter.string(from: Date()))", algorithm: algorithm)
        print(key.environmentValue)
    }

    static func algorithm(named name: String) -> SigningKeyConfiguration.Algorithm? {
        SigningKeyConfiguration.Algorithm.allCases.first { $0.rawValue.lowercased() == name.lowercased() }
    }
}
