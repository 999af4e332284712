import Foundation
import MendClientTesting
import MendCore
import MendGraphAPI
import Testing

@Suite("Catalog lookup order, is_transient and provider configuration")
struct CatalogLookupTests {
    /// A small catalog where every level of the lookup order has a row.
    static let layered = ErrorCatalog(entries: [
        .init(
            domain: .graph, codes: nil, name: "anyAny", category: .other, recovery: .none, messageKey: .generic,
            summary: ""),
        .init(
            domain: .graph, codes: nil, subcode: 7, name: "anySub7", category: .transient, recovery: .retry,
            messageKey: .generic, summary: ""),
        .init(
            domain: .graph, codes: 50...50, name: "code50", category: .recoverable, recovery: .reauthenticate,
            messageKey: .generic, summary: ""),
        .init(
            domain: .graph, codes: 50...50, subcode: 7, name: "code50sub7", category: .other, recovery: .changeRequest,
            messageKey: .generic, summary: ""),
        .init(
            domain: .graph, codes: 40...60, name: "range40to60", category: .transient, recovery: .retry,
            messageKey: .generic, summary: ""),
    ])

    @Test(
        "(code, subcode) → (code, any) → (any, subcode) → (any, any); exact codes beat ranges",
        arguments: [
            (50, 7, "code50sub7"),
            (50, 8, "code50"),
            (50, nil, "code50"),
            (45, nil, "range40to60"),
            (45, 9, "range40to60"),
            (99, 7, "anySub7"),
            (99, 8, "anyAny"),
            (99, nil, "anyAny"),
        ] as [(Int, Int?, String)])
    func lookupOrder(code: Int, subcode: Int?, expected: String) {
        let entry = Self.layered.entry(
            code: MendError.Code(.graph, code), subcode: subcode.map(MendError.Subcode.init(rawValue:)))
        #expect(entry.name == expected)
    }

    @Test("Unknown codes and unknown domains get a generic row")
    func unknownCodes() {
        #expect(
            MendError(code: MendError.Code(.graph, 424_242), catalog: .everyClientSpace).name == "unknownGraphError")
        #expect(
            MendError(code: .Graph.accessTokenInvalid, subcode: 999, catalog: .everyClientSpace).name
                == "accessTokenInvalid")
        let foreign = MendError(
            code: MendError.Code(MendError.Domain(rawValue: "payments"), 1), catalog: .everyClientSpace)
        #expect(foreign.category == .other)
        #expect(foreign.name == "unknown")
        #expect(foreign.messageKey == .generic)
    }

    @Test("is_transient forces the transient category, keeping a rate-limit wait")
    func isTransientOverride() {
        let invalid = MendError(code: .Graph.invalidParameter, isTransient: true, catalog: .everyClientSpace)
        #expect(invalid.category == .transient)
        #expect(invalid.recovery.action == .retry)
        let throttled = MendError(code: .Graph.appRateLimit, isTransient: true, catalog: .everyClientSpace)
        #expect(throttled.recovery.action == .waitForRateLimit)
        let token = MendError(
            code: .Graph.accessTokenInvalid, subcode: .tokenExpired, isTransient: false, catalog: .everyClientSpace)
        #expect(token.category == .recoverable)
    }

    static let providerConfiguration = #"""
        {"ios_sdk_error_categories": [
          {"name": "transient", "items": [{"code": 100, "subcodes": [33]}, {"code": 506}],
           "recovery_message": "Bitte später erneut versuchen.", "recovery_options": ["OK"]},
          {"name": "login", "items": [{"code": 368}],
           "recovery_message": "Please log in again.", "recovery_options": ["Log In", "Not Now"]},
          {"name": "other", "items": [{"code": 190, "subcodes": [463]}]},
          {"name": "mystery", "items": [{"code": 1}]}
        ]}
        """#

    @Test("A provider configuration in the vendor's shape is merged over the defaults")
    func providerMerge() throws {
        let merged = try ErrorCatalog.everyClientSpace.merging(
            providerConfiguration: Data(Self.providerConfiguration.utf8))

        let missing = MendError(code: .Graph.invalidParameter, subcode: .objectNotFound, catalog: merged)
        #expect(missing.category == .transient)
        #expect(missing.recovery.action == .retry)
        #expect(missing.recoverySuggestion(locale: Locale(identifier: "en")) == "Bitte später erneut versuchen.")
        #expect(missing.recoveryOptions(locale: Locale(identifier: "en")) == ["OK"])
        #expect(missing.name == "objectNotFound")

        let duplicate = MendError(code: .Graph.duplicatePost, catalog: merged)
        #expect(duplicate.category == .transient)

        let blocked = MendError(code: .Graph.temporarilyBlocked, catalog: merged)
        #expect(blocked.category == .recoverable)
        #expect(blocked.recovery.action == .reauthenticate)
        #expect(blocked.recoveryOptions(locale: Locale(identifier: "en")) == ["Log In", "Not Now"])

        let expired = MendError(code: .Graph.accessTokenInvalid, subcode: .tokenExpired, catalog: merged)
        #expect(expired.category == .other)
        // Rows the configuration did not name keep their defaults, as do unknown category names.
        #expect(
            MendError(code: .Graph.accessTokenInvalid, subcode: .passwordChanged, catalog: merged).category
                == .recoverable)
        #expect(MendError(code: .Graph.invalidParameter, catalog: merged).category == .other)
        #expect(MendError(code: .Graph.unknown, catalog: merged).category == .transient)
        // The standard catalog itself is unchanged.
        #expect(MendError(code: .Graph.duplicatePost, catalog: .everyClientSpace).category == .other)
        #expect(
            MendError(code: .Graph.duplicatePost, catalog: .everyClientSpace).recoverySuggestion(
                locale: Locale(identifier: "en"))
                == "Check what you entered and try again.")
    }

    @Test("A bare list of categories merges too, and bad configurations fail clearly")
    func providerMergeShapes() throws {
        let list = JSONValue.array([
            .object(["name": .string("transient"), "items": .array([.object(["code": .int(3)])])])
        ])
        #expect(
            MendError(
                code: .Graph.capabilityMissing,
                catalog: try ErrorCatalog.everyClientSpace.merging(providerConfiguration: list)
            ).category == .transient)

        #expect(throws: ErrorCatalog.ConfigurationError.notJSON) {
            try ErrorCatalog.everyClientSpace.merging(providerConfiguration: Data("<html>".utf8))
        }
        #expect(throws: ErrorCatalog.ConfigurationError.self) {
            try ErrorCatalog.everyClientSpace.merging(providerConfiguration: .object(["data": .array([])]))
        }
        #expect(throws: ErrorCatalog.ConfigurationError.self) {
            try ErrorCatalog.everyClientSpace.merging(providerConfiguration: .array([.string("transient")]))
        }
        #expect(throws: ErrorCatalog.ConfigurationError.self) {
            try ErrorCatalog.everyClientSpace.merging(
                providerConfiguration: .array([
                    .object(["name": .string("other"), "items": .array([.object(["code": .string("x")])])])
                ]))
        }
    }
}
