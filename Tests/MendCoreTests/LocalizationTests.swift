import Foundation
import MendClientTesting
import MendGraphAPI
import MendHTTP
import MendLogin
import Testing

@testable import MendCore

@Suite("Localized user messages")
struct LocalizationTests {
    @Test(
        "Every shipped language has every message, recovery and label of English",
        arguments: MendLocalization.supportedLanguages)
    func completeness(language: String) throws {
        let table = try #require(MendLocalization.tables[language])
        let english = MendLocalization.english
        #expect(Set(table.messages.keys) == Set(english.messages.keys))
        #expect(Set(table.recoveries.keys) == Set(english.recoveries.keys))
        #expect(Set(table.labels.keys) == Set(MendLocalization.Label.allCases))
        for (action, text) in english.recoveries {
            let translated = try #require(table.recoveries[action])
            #expect(translated.options.count == text.options.count, "\(language) \(action) options")
            #expect((translated.suggestion == nil) == (text.suggestion == nil), "\(language) \(action) suggestion")
        }
        for (key, message) in table.messages {
            #expect(!message.title.isEmpty && !message.message.isEmpty, "\(language) \(key)")
        }
    }

    @Test(
        "Every catalog row and recovery action has text in every language",
        arguments: MendLocalization.supportedLanguages)
    func catalogKeysExist(language: String) throws {
        let table = try #require(MendLocalization.tables[language])
        for entry in ErrorCatalog.everyClientSpace.entries {
            #expect(
                table.messages[entry.messageKey] != nil, "\(language): no message \(entry.messageKey) for \(entry.name)"
            )
            #expect(table.recoveries[entry.recovery] != nil, "\(language): no recovery \(entry.recovery)")
        }
        for action in MendError.Recovery.Action.known {
            #expect(table.recoveries[action] != nil, "\(language): no recovery \(action)")
        }
    }

    @Test("User-facing text never contains raw codes or numbers", arguments: MendLocalization.supportedLanguages)
    func noRawCodes(language: String) throws {
        let table = try #require(MendLocalization.tables[language])
        let texts =
            table.messages.values.flatMap { [$0.title, $0.message] }
            + table.recoveries.values.flatMap { [$0.suggestion].compactMap { $0 } + $0.options }
        for text in texts {
            // Western and full-width digits (CJK numerals such as 一 in もう一度 are words, not codes).
            #expect(!text.contains { $0.isASCII && $0.isNumber || ("０"..."９").contains($0) }, "\(language): '\(text)'")
            #expect(!text.contains("Exception") && !text.contains("OAuth"), "\(language): '\(text)'")
        }
    }

    @Test("Languages differ from English where they should")
    func translated() {
        let error = MendError(code: .Graph.accessTokenInvalid, subcode: .tokenExpired, catalog: .everyClientSpace)
        let messages = Set(
            MendLocalization.supportedLanguages.map { error.userMessage(locale: Locale(identifier: $0)) })
        #expect(messages.count == MendLocalization.supportedLanguages.count)
        #expect(error.userMessage(locale: Locale(identifier: "de_DE")).contains("Sitzung"))
        #expect(
            error.userMessage(locale: Locale(identifier: "pt_BR"))
                == error.userMessage(locale: Locale(identifier: "en")))
    }

    @Test(
        "Security errors stay generic, even when a server sends its own text",
        arguments: [
            MendError.Code.Login.badChallengeString, .Login.invalidIDToken,
        ])
    func securityErrorsAreGeneric(code: MendError.Code) {
        var error = MendError(code: code, developerMessage: "state abc123 != def456", catalog: .everyClientSpace)
        error.serverUserMessage = "The state parameter abc123 did not match"
        error.serverUserTitle = "CSRF detected"
        #expect(error.isSecuritySensitive)
        #expect(error.messageKey == .loginFailed)
        let generic = MendError(code: .Login.unknown, catalog: .everyClientSpace)
        for language in MendLocalization.supportedLanguages {
            let locale = Locale(identifier: language)
            #expect(error.userMessage(locale: locale) == generic.userMessage(locale: locale))
            #expect(error.userTitle(locale: locale) == generic.userTitle(locale: locale))
        }
        #expect(error.developerMessage.contains("abc123"))
    }

    @Test("The server's own user title and message win for ordinary errors")
    func serverTextWins() {
        var error = MendError(code: .Graph.duplicatePost, catalog: .everyClientSpace)
        error.serverUserTitle = "Doppelter Beitrag"
        error.serverUserMessage = "Du hast das bereits gepostet."
        #expect(error.userTitle(locale: Locale(identifier: "en")) == "Doppelter Beitrag")
        #expect(error.userMessage(locale: Locale(identifier: "fr")) == "Du hast das bereits gepostet.")
    }

    @Test("The reference line is localized, and absent for errors that never reached the API")
    func referenceText() {
        var error = MendError(code: .REST.updateConflict, catalog: .everyClientSpace)
        #expect(error.referenceText(locale: Locale(identifier: "en")) == nil)
        #expect(error.referenceIDOrNone == "-1")
        error.referenceID = "8f14e45f"
        #expect(error.referenceText(locale: Locale(identifier: "de")) == "Referenz: 8f14e45f")
    }
}
