import Foundation
import MendLogin
import Testing

@testable import MendCore

/// Messages an app registers. The registry is process-wide, so every test here uses its own language (tests run in
/// parallel, and other suites read the shipped languages).
@Suite("Messages an app adds")
struct AppMessagesTests {
    static func error(_ code: MendError.Code, subcode: Int? = nil) -> MendError {
        MendError(
            code: code, subcode: subcode.map(MendError.Subcode.init(rawValue:)), developerMessage: "test",
            catalog: .core)
    }

    @Test("A registered language renders every text it gives; what it lacks falls back to English")
    func newLanguage() throws {
        let messages = try MendMessages(
            json: Data(
                #"""
                {"pt": {"serviceUnavailable": "O serviço está indisponível no momento.",
                        "serviceUnavailable.title": "Serviço indisponível",
                        "recovery.retry": "Tente novamente daqui a pouco.",
                        "recovery.retry.options.0": "Tentar de novo", "recovery.retry.options.1": "Cancelar",
                        "label.reference": "Referência"}}
                """#.utf8))
        MendLocalization.register(messages)
        let error = Self.error(.HTTP.serviceUnavailable)
        let portuguese = Locale(identifier: "pt-BR")
        #expect(MendLocalization.language(for: portuguese) == "pt")
        #expect(error.userTitle(locale: portuguese) == "Serviço indisponível")
        #expect(error.userMessage(locale: portuguese) == "O serviço está indisponível no momento.")
        #expect(error.recoverySuggestion(locale: portuguese) == "Tente novamente daqui a pouco.")
        #expect(error.recoveryOptions(locale: portuguese) == ["Tentar de novo", "Cancelar"])
        var referenced = error
        referenced.referenceID = "AbC123"
        #expect(referenced.referenceText(locale: portuguese) == "Referência: AbC123")
        // Not given: English, never an empty string or a key.
        let notFound = Self.error(.HTTP.notFound)
        #expect(notFound.userMessage(locale: portuguese) == notFound.userMessage(locale: Locale(identifier: "en")))
        #expect(MendLocalization.availableLanguages.contains("pt"))
        #expect(MendLocalization.availableLanguages.prefix(5) == ["en", "de", "es", "fr", "ja"])
        // What the translation still lacks.
        let missing = messages.missingKeys(for: "pt")
        #expect(missing.contains("notFound") && missing.contains("notFound.title"))
        #expect(!missing.contains("serviceUnavailable") && !missing.contains("recovery.retry.options.1"))
        #expect(missing.count == MendMessages.baseKeys.count - 6)
    }

    @Test("A region's own table wins over its language's; the language's covers the rest")
    func regions() throws {
        MendLocalization.register(
            try MendMessages([
                "nl": ["rateLimited": "Te veel verzoeken.", "rateLimited.title": "Even wachten"],
                "nl_BE": ["rateLimited": "Te veel aanvragen."],
            ]))
        let error = Self.error(.HTTP.tooManyRequests)
        #expect(error.userMessage(locale: Locale(identifier: "nl_BE")) == "Te veel aanvragen.")
        #expect(error.userTitle(locale: Locale(identifier: "nl_BE")) == "Even wachten")
        #expect(error.userMessage(locale: Locale(identifier: "nl_NL")) == "Te veel verzoeken.")
        #expect(MendLocalization.registeredLanguages.contains("nl-be"))
    }

    @Test("Per-error texts win over the message key's, code and subcode over code; security errors stay generic")
    func perError() throws {
        MendLocalization.register(
            try MendMessages([
                "sv": [
                    "http/503": "Tjänsten underhålls.", "http/503.title": "Underhåll",
                    "serviceUnavailable": "Tjänsten är inte tillgänglig.",
                    "transport/7": "Ett oläsbart svar.", "transport/7/1.title": "Fel svar",
                ]
            ]))
        let swedish = Locale(identifier: "sv")
        #expect(Self.error(.HTTP.serviceUnavailable).userMessage(locale: swedish) == "Tjänsten underhålls.")
        #expect(Self.error(.HTTP.serviceUnavailable).userTitle(locale: swedish) == "Underhåll")
        // Another code with the same message key gets the key's text.
        let gateway = Self.error(.HTTP.badGateway)
        #expect(gateway.messageKey == .serviceUnavailable)
        #expect(gateway.userMessage(locale: swedish) == "Tjänsten är inte tillgänglig.")
        let malformed = Self.error(.Transport.malformedResponse, subcode: 1)
        #expect(malformed.userTitle(locale: swedish) == "Fel svar")
        #expect(malformed.userMessage(locale: swedish) == "Ett oläsbart svar.")
        #expect(Self.error(.Transport.malformedResponse).userTitle(locale: swedish) != "Fel svar")
    }

    @Test("A security error ignores a per-error text and shows its generic message key's, translated")
    func securityErrors() throws {
        let forged = MendError.login(.Login.badChallengeString, "The redirect's state differs from the one sent.")
        #expect(forged.isSecuritySensitive)
        MendLocalization.register(
            try MendMessages([
                "da": [
                    "\(forged.code)": "Nogen forfalskede dit login.",
                    "\(forged.messageKey.rawValue)": "Login mislykkedes. Prøv igen.",
                ]
            ]))
        #expect(forged.userMessage(locale: Locale(identifier: "da")) == "Login mislykkedes. Prøv igen.")
    }

    @Test(
        "Refused: unknown keys, bad tags, empty texts, control characters, incomplete options, non-strings, huge files",
        arguments: [
            #"{"pt": {"sesionExpired": "x"}}"#, #"{"p": {"sessionExpired": "x"}}"#,
            #"{"pt-": {"sessionExpired": "x"}}"#, #"{"pt": {"sessionExpired": " "}}"#,
            #"{"pt": {"sessionExpired": "a\u0007b"}}"#, #"{"pt": {"recovery.retry.options.0": "x"}}"#,
            #"{"pt": {"sessionExpired": 3}}"#, #"{"pt": ["x"]}"#, #"["pt"]"#, #"{"pt": {"graph/19x": "x"}}"#,
            #"{"pt": {"graph/-1": "x"}}"#, #"{"pt": {"Graph/190": "x"}}"#, #"{"pt": {"graph/190/1/2": "x"}}"#,
            "not json",
        ])
    func refused(json: String) {
        #expect(throws: MendMessages.Invalid.self) { try MendMessages(json: Data(json.utf8)) }
    }

    @Test("A file over the size limit is refused before it is parsed")
    func huge() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("huge.json")
        try Data(repeating: 0x20, count: MendMessages.maximumSize + 1).write(to: file)
        let error = try #require(throws: MendMessages.Invalid.self) { try MendMessages(contentsOf: file) }
        #expect(error.reason.contains("larger"))
    }

    @Test("A bundle's string tables (what a String Catalog builds into) are read per localization")
    func bundle() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).bundle")
        defer { try? FileManager.default.removeItem(at: root) }
        for (language, text) in [("it", "La sessione è scaduta."), ("fi", "Istunto vanhentui.")] {
            let folder = root.appendingPathComponent("\(language).lproj")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("/* Mend */\n\"sessionExpired\" = \"\(text)\";\n\"graph/190/463.title\" = \"!\";\n".utf8)
                .write(to: folder.appendingPathComponent("Mend.strings"))
        }
        let bundle = try #require(Bundle(path: root.path))
        let messages = try MendMessages(bundle: bundle)
        #expect(messages.languages == ["fi", "it"])
        #expect(messages.texts["it"]?["sessionExpired"] == "La sessione è scaduta.")
        #expect(messages.texts["fi"]?["graph/190/463.title"] == "!")
    }
}
