public import Foundation
public import MendCore

extension ErrorCatalog {
    /// Why a provider's error configuration could not be merged.
    public enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The configuration is not JSON.
        case notJSON
        /// The configuration is JSON but not the `ios_sdk_error_categories` shape (a list of categories).
        case wrongShape(String)

        /// A stable, readable rendering.
        public var description: String {
            switch self {
            case .notJSON: "The error configuration is not JSON."
            case .wrongShape(let detail): "The error configuration has the wrong shape: \(detail)."
            }
        }
    }

    /// Returns this catalog with a provider's Graph error configuration merged over it.
    ///
    /// The configuration is the `ios_sdk_error_categories` field of the provider's app node: a list of
    /// `{"name": "transient" | "login" | "recoverable" | "other", "items": [{"code": 190, "subcodes": [459, 464]}],
    /// "recovery_message": "…", "recovery_options": ["…", "…"]}`. Each item replaces the category of its
    /// (code, subcode) rows — or (code, any) without subcodes — and carries the provider's recovery text.
    /// Categories with an unknown name are skipped, as the vendor SDK skips them.
    ///
    /// - Parameter configuration: The parsed `ios_sdk_error_categories` value, or an object holding it.
    public func merging(providerConfiguration configuration: JSONValue) throws(ConfigurationError) -> ErrorCatalog {
        let list: [JSONValue]
        if let array = configuration.arrayValue {
            list = array
        } else if let array = configuration["ios_sdk_error_categories"]?.arrayValue {
            list = array
        } else {
            throw .wrongShape("expected a list of categories or an object with ios_sdk_error_categories")
        }
        var merged = self
        for (position, categoryValue) in list.enumerated() {
            guard let object = categoryValue.objectValue else {
                throw .wrongShape("category \(position) is not an object")
            }
            guard let name = object["name"]?.stringValue, let category = Self.category(providerName: name) else {
                continue
            }
            let suggestion = object["recovery_message"]?.stringValue
            let options = object["recovery_options"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let text =
                suggestion != nil || !options.isEmpty
                ? MendError.ServerRecoveryText(suggestion: suggestion, options: options) : nil
            for item in object["items"]?.arrayValue ?? [] {
                guard let code = item["code"]?.intValue else {
                    throw .wrongShape("an item of category \(position) has no integer code")
                }
                let subcodes = item["subcodes"]?.arrayValue?.compactMap(\.intValue) ?? []
                for subcode in subcodes.isEmpty ? [nil] : subcodes.map(Optional.some) {
                    merged.override(code: code, subcode: subcode, category: category, recoveryText: text)
                }
            }
        }
        return merged
    }

    /// Returns this catalog with a provider's Graph error configuration, given as JSON bytes, merged over it.
    public func merging(providerConfiguration data: Data) throws(ConfigurationError) -> ErrorCatalog {
        guard case .success(let value) = JSONValue.parse(data) else { throw .notJSON }
        return try merging(providerConfiguration: value)
    }

    private mutating func override(
        code: Int, subcode: Int?, category: MendError.Category, recoveryText: MendError.ServerRecoveryText?
    ) {
        let base = entry(code: MendError.Code(.graph, code), subcode: subcode.map(MendError.Subcode.init(rawValue:)))
        let renamed = base.category != category && (base.codes != code...code || base.subcode != subcode)
        let replacement = Entry(
            domain: .graph, codes: code...code, subcode: subcode,
            name: renamed ? "provider\(code)" + (subcode.map { "_\($0)" } ?? "") : base.name,
            category: category,
            recovery: base.category != category ? Self.defaultAction(for: category) : base.recovery,
            messageKey: base.messageKey, summary: base.summary, wireName: base.wireName,
            isSecuritySensitive: base.isSecuritySensitive,
            isAutomaticallyRetryable: category == .transient && base.isAutomaticallyRetryable
                || category == .transient && base.category != .transient)
        upsert(replacement)
        setServerRecovery(recoveryText, for: replacement)
    }

    static func category(providerName name: String) -> MendError.Category? {
        switch name.lowercased() {
        case "transient": .transient
        case "login", "recoverable", "login_recoverable": .recoverable
        case "other": .other
        default: nil
        }
    }

    static func defaultAction(for category: MendError.Category) -> MendError.Recovery.Action {
        switch category {
        case .transient: .retry
        case .recoverable: .reauthenticate
        case .other: .contactSupport
        }
    }
}
