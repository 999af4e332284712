import Configuration
import Foundation
import Logging
import MendRecording

/// mend-server's variables, read through swift-configuration: the command line's values (`--host`, `--port`) first,
/// then the process's environment, then the JSON file `MEND_CONFIG_FILE` names, then the files the `…_FILE` forms of
/// the secrets name. A variable's own name wins over its aliases, wherever each is set.
///
/// Every typed read is a `required…` read once a value is present: swift-configuration's optional and defaulted
/// reads answer `nil` (or the default) for a value they cannot convert, which would run a server on a setting its
/// operator did not give. A value that is present and wrong is a ``ConfigurationError`` naming the variable (never a
/// secret's value); an empty value is no value.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct VariableReader {
    private let reader: ConfigReader

    /// - Parameters:
    ///   - environment: The process's environment.
    ///   - overrides: Values from the command line, which win over the environment.
    init(environment: [String: String], overrides: [String: String] = [:]) throws(ConfigurationError) {
        let secrets = SecretsSpecifier<String, String>.specific(ServerEnvironment.secretNames)
        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider(environmentVariables: overrides, secretsSpecifier: secrets),
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: secrets),
        ]
        let file = ConfigReader(providers: providers).string(forKey: Self.key("MEND_CONFIG_FILE"))
        if let path = file.flatMap(Self.nonEmpty) {
            providers.append(
                EnvironmentVariablesProvider(
                    environmentVariables: try ServerEnvironment.fileValues(path: path), secretsSpecifier: secrets))
        }
        // The `…_FILE` forms: each names a file that holds the secret (Docker's and Kubernetes' secrets), read once
        // here; the variable itself, wherever it is set, wins over its file.
        let named = ConfigReader(providers: providers)
        var fromFiles: [String: String] = [:]
        for name in ServerEnvironment.fileBackedNames {
            guard let path = named.string(forKey: Self.key(name + "_FILE")).flatMap(Self.nonEmpty) else { continue }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("\(name)_FILE: cannot read \(path)")
            }
            fromFiles[name] = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        providers.append(EnvironmentVariablesProvider(environmentVariables: fromFiles, secretsSpecifier: secrets))
        reader = ConfigReader(providers: providers)
    }

    /// The key of a variable: its name as one component (the environment provider's encoding keeps it as it is).
    private static func key(_ name: String) -> ConfigKey { ConfigKey([name]) }

    private static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The first of `names` that has a non-empty value: a variable, then its aliases.
    private func present(_ names: [String]) -> String? {
        names.first { name in
            reader.string(forKey: Self.key(name), isSecret: ServerEnvironment.secretNames.contains(name))
                .flatMap(Self.nonEmpty) != nil
        }
    }

    /// The variable's text, trimmed; `nil` when it is unset or empty. `aliases` are read after the name.
    func text(_ name: String, aliases: [String] = []) -> String? {
        guard let found = present([name] + aliases) else { return nil }
        let isSecret = ServerEnvironment.secretNames.contains(found)
        return reader.string(forKey: Self.key(found), isSecret: isSecret).flatMap(Self.nonEmpty)
    }

    /// A comma-separated list, its items trimmed and empty ones dropped; `nil` when unset.
    func list(_ name: String) -> [String]? {
        guard present([name]) != nil, let items = try? reader.requiredStringArray(forKey: Self.key(name)) else {
            return nil
        }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A value of a string-convertible type: `nil` when unset; when set, converted by a required read, and a value
    /// that does not convert is `failure(name, text)`'s error, `name` the one that was set (the variable or an alias).
    func value<Value: ExpressibleByConfigString>(
        _ name: String, aliases: [String] = [], as type: Value.Type,
        failure: (_ name: String, _ text: String) -> ConfigurationError
    ) throws(ConfigurationError) -> Value? {
        guard let found = present([name] + aliases) else { return nil }
        let isSecret = ServerEnvironment.secretNames.contains(found)
        do {
            return try reader.requiredString(forKey: Self.key(found), as: Value.self, isSecret: isSecret)
        } catch {
            throw failure(found, isSecret ? "" : (reader.string(forKey: Self.key(found)) ?? ""))
        }
    }

    /// A value of a `String`-backed enumeration, such as a log level or a recording mode.
    func value<Value: RawRepresentable<String>>(
        _ name: String, as type: Value.Type, failure: (String) -> ConfigurationError
    ) throws(ConfigurationError) -> Value? {
        guard present([name]) != nil else { return nil }
        do {
            return try reader.requiredString(forKey: Self.key(name), as: Value.self)
        } catch {
            throw failure(reader.string(forKey: Self.key(name)) ?? "")
        }
    }

    /// Every item of a comma-separated list converted, or the error for the first that does not.
    func list<Value: ExpressibleByConfigString>(
        _ name: String, as type: Value.Type, failure: (String) -> ConfigurationError
    ) throws(ConfigurationError) -> [Value]? {
        guard let items = list(name) else { return nil }
        var values: [Value] = []
        for item in items {
            guard let value = Value(configString: item) else { throw failure(item) }
            values.append(value)
        }
        return values
    }

    /// A duration in Mend's syntax (`900`, `15m`, `12h`, `30d`, `250ms`).
    func duration(_ name: String, aliases: [String] = []) throws(ConfigurationError) -> Duration? {
        try value(name, aliases: aliases, as: ConfigDuration.self) { found, text in
            ConfigurationError("\(found) '\(text)' is not a duration (900, 900s, 15m, 12h, 30d, 250ms)")
        }?.duration
    }

    /// `true`, `false`, `1`, `0`, `yes`, `no`, `on` or `off`.
    func flag(_ name: String) throws(ConfigurationError) -> Bool? {
        try value(name, as: ConfigFlag.self) { _, _ in ConfigurationError("\(name) must be true or false") }?.value
    }

    /// A whole number at least `minimum` and at most `maximum`.
    func integer(_ name: String, minimum: Int = 0, maximum: Int = .max) throws(ConfigurationError) -> Int? {
        let bounds =
            maximum == .max ? "a number of at least \(minimum)" : "a number from \(minimum) to \(maximum)"
        guard
            let number = try value(
                name, as: ConfigInteger.self,
                failure: { _, _ in
                    ConfigurationError("\(name) must be \(bounds)")
                })?.value
        else { return nil }
        guard number >= minimum, number <= maximum else {
            throw ConfigurationError("\(name) must be \(bounds), not \(number)")
        }
        return number
    }

    /// An absolute URL with a host (`https://…`).
    func url(_ name: String) throws(ConfigurationError) -> URL? {
        try value(name, as: AbsoluteURL.self) { _, _ in ConfigurationError("\(name) is not an absolute URL") }?.url
    }

    /// A rate limit (`30/60s`, `10/min`, `off`): `.some(nil)` for `off`.
    func rateLimit(_ name: String) throws(ConfigurationError) -> RateLimitRule?? {
        guard let text = text(name) else { return nil }
        let read = try value(name, as: ConfigRateLimit.self) { _, _ in
            do throws(ConfigurationError) {
                _ = try RateLimitRule.parse(text)
                return ConfigurationError("\(name): not a rate limit")
            } catch {
                return ConfigurationError("\(name): \(error.description)")
            }
        }
        guard let read else { return nil }
        return .some(read.rule)
    }

    /// The log level (`trace` … `critical`, in any case).
    func logLevel(_ name: String) throws(ConfigurationError) -> Logger.Level? {
        try value(name, as: ConfigLogLevel.self) { _, text in
            ConfigurationError(
                "\(name) '\(text)' is not a log level (trace, debug, info, notice, warning, error, critical)")
        }?.level
    }
}

// MARK: - Mend's value syntax as swift-configuration's string-convertible types

/// A duration in Mend's syntax, for ``VariableReader``.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct ConfigDuration: ExpressibleByConfigString {
    var duration: Duration
    init?(configString: String) {
        guard let duration = try? DurationText.parse(configString, name: "") else { return nil }
        self.duration = duration
    }
    var description: String { DurationText.format(duration) }
}

/// A rate limit in Mend's syntax (`off` is no rule), for ``VariableReader``.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct ConfigRateLimit: ExpressibleByConfigString {
    var rule: RateLimitRule?
    init?(configString: String) {
        do {
            rule = try RateLimitRule.parse(configString)
        } catch {
            return nil
        }
    }
    var description: String { rule?.description ?? "off" }
}

/// A switch: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, in any case.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct ConfigFlag: ExpressibleByConfigString {
    var value: Bool
    init?(configString: String) {
        switch configString.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": value = true
        case "0", "false", "no", "off": value = false
        default: return nil
        }
    }
    var description: String { "\(value)" }
}

/// A whole number, surrounding spaces allowed.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct ConfigInteger: ExpressibleByConfigString {
    var value: Int
    init?(configString: String) {
        guard let value = Int(configString.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.value = value
    }
    var description: String { "\(value)" }
}

/// An absolute URL with a scheme and a host.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct AbsoluteURL: ExpressibleByConfigString {
    var url: URL
    init?(configString: String) {
        let text = configString.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
        self.url = url
    }
    var description: String { url.absoluteString }
}

/// A redirect URI an app logs in with: absolute (a scheme: `https://app.example/cb`, `com.example.app:/callback`),
/// without a fragment (RFC 6749, 3.1.2).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct RedirectURI: ExpressibleByConfigString {
    var text: String
    init?(configString: String) {
        let text = configString.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty, url.fragment == nil,
            !text.contains("#"), text.count > scheme.count + 1
        else { return nil }
        if ["http", "https"].contains(scheme.lowercased()), (url.host ?? "").isEmpty { return nil }
        self.text = text
    }
    var description: String { text }
}

/// A log level by its name, in any case.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct ConfigLogLevel: ExpressibleByConfigString {
    var level: Logger.Level
    init?(configString: String) {
        guard let level = Logger.Level(rawValue: configString.trimmingCharacters(in: .whitespaces).lowercased())
        else { return nil }
        self.level = level
    }
    var description: String { level.rawValue }
}
