import Foundation
import MendCore
import MendJOSE
import Testing

@testable import MendWebAuthn

@Suite("The software authenticator's passkey file")
struct SoftwareAuthenticatorFileTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("mend-passkeys-\(UUID().uuidString)")
    }

    static func options(_ algorithm: COSEAlgorithm) -> CreationOptions {
        CreationOptions(
            rpID: "example.com", rpName: "Example", userID: Array("user-1".utf8), userName: "ana",
            userDisplayName: "Ana", challenge: Array(repeating: 7, count: 32), algorithms: [algorithm])
    }

    @Test("Passkeys survive the file (ES256, EdDSA): the same keys sign, the counter kept; the file is 0600")
    func roundTrip() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = SoftwareAuthenticatorFile(directory: directory)
        #expect(try file.load().isEmpty)
        var authenticator = SoftwareAuthenticator()
        _ = try authenticator.create(Self.options(.es256), origin: "https://example.com")
        authenticator.credentials[0].userHandle = Array("user-2".utf8)
        _ = try authenticator.create(Self.options(.edDSA), origin: "https://example.com")
        authenticator.credentials[1].signCount = 41
        try file.save(authenticator.credentials)

        let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let loaded = try file.load()
        #expect(loaded.map(\.id) == authenticator.credentials.map(\.id))
        #expect(loaded.map(\.signCount) == [0, 41])
        #expect(loaded.map(\.key.algorithm) == [.es256, .edDSA])
        for (original, read) in zip(authenticator.credentials, loaded) {
            #expect(read.key.publicKey.algorithm == original.key.publicKey.algorithm)
            let message = Array("signed".utf8)
            #expect(original.key.publicKey.isValidSignature(try read.key.signature(for: message), for: message))
        }
    }

    @Test("The file's private keys are secrets to the one vocabulary: redaction and the recorder's engine hide them")
    func privateKeysAreRedacted() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = SoftwareAuthenticatorFile(directory: directory)
        var authenticator = SoftwareAuthenticator()
        _ = try authenticator.create(Self.options(.es256), origin: "https://example.com")
        try file.save(authenticator.credentials)
        let text = try String(contentsOf: file.url, encoding: .utf8)
        let json = try JSONValue.parse(Data(text.utf8)).get()
        let privateKey = try #require(json["credentials"]?.arrayValue?.first?["private_key"]?.stringValue)
        #expect(privateKey.count == 43)
        #expect(SecretVocabulary.isSecret(name: "private_key", value: privateKey, in: .text))
        #expect(!Redactor.standard.redact(text: text).contains(privateKey))
        let recorded = SecretText.standard.redact(text) { _, kind in "<mend:\(kind):1>" }
        #expect(!recorded.contains(privateKey) && recorded.contains("<mend:private_key:1>"))
        // The credential ID and the RP ID are no secrets: they stay.
        #expect(recorded.contains(Base64URL.encode(authenticator.credentials[0].id)))
    }

    @Test("A file that is not a passkey file is refused by name, without its content")
    func refusesOtherFiles() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = SoftwareAuthenticatorFile(directory: directory)
        try PrivateFiles.write(Data(#"{"credentials": [{"private_key": "c2VjcmV0"}]}"#.utf8), to: file.url, what: "x")
        let error = try #require(throws: SoftwareAuthenticatorFile.Failure.self) { try file.load() }
        #expect(error.description.contains("passkeys.json") && !error.description.contains("c2VjcmV0"))
    }
}
