import Foundation
import MendCore
package import MendWebAuthn

/// MendWebAuthn's software authenticator as a ``PasskeyAuthenticator``: passkeys in memory, or in a file
/// (`SoftwareAuthenticatorFile`, 0600), for `mend` and tests — a development aid, not a secure authenticator.
///
/// Its ceremonies come from `origin` (`nil`: `https://` and the options' RP ID, the origin mend-server accepts by
/// default). Its refusals are the browser's: `NotAllowedError` (`passkey/21`: no passkey of the RP ID),
/// `InvalidStateError` (`passkey/22`: it holds one of the user's passkeys already), `NotSupportedError`
/// (`passkey/23`). It has no cancel.
package final class SoftwarePasskeyAuthenticator: PasskeyAuthenticator {
    /// The origin its ceremonies come from; `nil`: `https://<RP ID>`.
    package let origin: String?
    /// Where its passkeys are kept between runs; `nil`: in memory.
    package let file: SoftwareAuthenticatorFile?
    private let authenticator: Locked<SoftwareAuthenticator>

    /// An authenticator whose passkeys are in memory.
    package init(origin: String? = nil, behaviour: SoftwareAuthenticator.Behaviour = .init()) {
        self.origin = origin
        self.file = nil
        self.authenticator = Locked(SoftwareAuthenticator(behaviour: behaviour))
    }

    /// An authenticator whose passkeys are in `file`, read at each ceremony and written after it.
    package init(file: SoftwareAuthenticatorFile, origin: String? = nil) {
        self.origin = origin
        self.file = file
        self.authenticator = Locked(SoftwareAuthenticator())
    }

    /// Its passkeys now (the file's, when it has one).
    package func credentials() throws -> [SoftwareAuthenticator.Credential] {
        if let file { return try Self.read(file) }
        return authenticator.withLock { $0.credentials }
    }

    package func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        let origin = self.origin ?? "https://\(options.relyingPartyID)"
        return PasskeyRegistration(try ceremony { try $0.create(options.options, origin: origin) })
    }

    package func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        let origin = self.origin ?? "https://\(options.relyingPartyID)"
        return PasskeyAssertion(try ceremony { try $0.get(options.options, origin: origin) })
    }

    /// Runs one ceremony on the passkeys (the file's, read now and written after), its refusal as the browser's.
    private func ceremony<T: Sendable>(
        _ body: (inout SoftwareAuthenticator) throws -> T
    ) throws -> T {
        try authenticator.withLock { authenticator in
            if let file { authenticator.credentials = try Self.read(file) }
            let answer: T
            do {
                answer = try body(&authenticator)
            } catch let refusal as SoftwareAuthenticator.Refusal {
                throw MendError.passkeyPlatform(
                    PasskeyPlatformError.code(domExceptionName: refusal.rawValue) ?? .Passkey.platformFailed,
                    "The software authenticator refused: \(refusal.rawValue).")
            }
            if let file {
                do {
                    try file.save(authenticator.credentials)
                } catch {
                    throw MendError.passkeyPlatform(.Passkey.platformFailed, "The software authenticator: \(error).")
                }
            }
            return answer
        }
    }

    private static func read(_ file: SoftwareAuthenticatorFile) throws -> [SoftwareAuthenticator.Credential] {
        do {
            return try file.load()
        } catch {
            throw MendError.passkeyPlatform(.Passkey.platformFailed, "The software authenticator: \(error).")
        }
    }
}
