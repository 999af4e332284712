import Crypto
import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendHTTP
import MendTesting
import Testing

@testable import MendServer

/// Reading the configuration from the environment and a file.
@Suite struct ConfigurationTests {
    static let minimal = [
        "MEND_APP_ID": "111", "MEND_APP_SECRET": "s3cret-value", "MEND_REDIRECT_URIS": "https://app.example/callback",
    ]

    @Test func readsTheMinimalEnvironmentWithDefaults() throws {
        let configuration = try ServerConfiguration.load(environment: Self.minimal)
        #expect(configuration.providers.facebook?.appID == "111")
        #expect(configuration.providers.facebook?.appSecret.value == "s3cret-value")
        #expect(configuration.providers.facebook.map { "\($0.appSecret)" } == "<redacted>")
        #expect(configuration.sessions.allowedRedirectURIs == ["https://app.example/callback"])
        #expect(configuration.storage.databaseURL == "sqlite://mend.sqlite")
        #expect(configuration.sessions.accessTokenLifetime == .seconds(900))
        #expect(configuration.sessions.idleLifetime == .seconds(2_592_000))
        #expect(configuration.sessions.maximumLifetime == .seconds(90 * 86400))
        #expect(configuration.sessions.refreshReuseGrace == .seconds(60))
        #expect(configuration.providers.returnsProviderToken == false)
        #expect(configuration.providers.facebook?.validityCheckInterval == .seconds(86400))
        #expect(configuration.listening.drainDelay == .seconds(5))
    }

    @Test func readsEveryVariable() throws {
        let key = SigningKeyConfiguration.generate(keyID: "k1")
        let ec = SigningKeyConfiguration.generate(keyID: "k0", algorithm: .es256)
        var environment = Self.minimal
        environment.merge(
            [
                "MEND_HOST": "0.0.0.0", "MEND_PORT": "9090", "MEND_GRAPH_URL": "http://127.0.0.1:1234",
                "MEND_GRAPH_VERSION": "v24.0", "MEND_REQUIRED_SCOPES": "email, user_friends",
                "DATABASE_URL": "postgres://mend:pw@db.internal:5432/mend",
                "MEND_SIGNING_KEYS": "\(key.environmentValue),\(ec.environmentValue)",
                "MEND_ISSUER": "https://auth.example", "MEND_AUDIENCE": "https://api.example",
                "MEND_ACCESS_TOKEN_TTL": "5m", "MEND_REFRESH_TOKEN_TTL": "7d", "MEND_REFRESH_REUSE_GRACE": "2s",
                "MEND_RETURN_PROVIDER_TOKEN": "true", "MEND_LONG_LIVED_EXCHANGE": "false",
                "MEND_RATE_LIMIT_LOGIN_IP": "5/min", "MEND_RATE_LIMIT_LOGIN_USER": "off",
                "MEND_RATE_LIMIT_REFRESH_IP": "100/60s", "MEND_RATE_LIMIT_REFRESH_USER": "10/h",
                "MEND_TRUST_FORWARDED_FOR": "yes", "MEND_PUBLIC_URL": "https://auth.example",
                "MEND_VALIDITY_CHECK_INTERVAL": "12h", "MEND_PROFILE_MAX_AGE": "30m",
                "MEND_SIGNED_REQUEST_MAX_AGE": "10m",
                "MEND_PROVIDER_TIMEOUT": "2500ms", "MEND_PROVIDER_MAX_ATTEMPTS": "2",
                "MEND_TOKEN_ENCRYPTION_KEY": Data(repeating: 7, count: 32).base64EncodedString(),
                "MEND_MAX_BODY_SIZE": "4096", "MEND_DRAIN_DELAY": "0",
            ], uniquingKeysWith: { $1 })
        let configuration = try ServerConfiguration.load(environment: environment)
        #expect(configuration.listening.host == "0.0.0.0")
        #expect(configuration.listening.port == 9090)
        #expect(configuration.providers.facebook?.graphURL.absoluteString == "http://127.0.0.1:1234")
        #expect(configuration.providers.facebook?.graphVersion == "v24.0")
        #expect(configuration.providers.facebook?.requiredScopes == ["email", "user_friends"])
        #expect(configuration.storage.databaseURL.hasPrefix("postgres://"))
        #expect(configuration.sessions.signingKeys.map(\.keyID) == ["k1", "k0"])
        #expect(configuration.sessions.signingKeys.map(\.algorithm) == [.eddsa, .es256])
        #expect(configuration.sessions.issuer == "https://auth.example")
        #expect(configuration.sessions.audience == "https://api.example")
        #expect(configuration.sessions.accessTokenLifetime == .seconds(300))
        #expect(configuration.sessions.idleLifetime == .seconds(7 * 86400))
        #expect(configuration.sessions.refreshReuseGrace == .seconds(2))
        #expect(configuration.providers.returnsProviderToken)
        #expect(configuration.providers.facebook?.exchangesForLongLivedToken == false)
        #expect(configuration.sessions.rateLimits.loginPerAddress == RateLimitRule(requests: 5, per: .seconds(60)))
        #expect(configuration.sessions.rateLimits.loginPerUser == nil)
        #expect(configuration.sessions.rateLimits.refreshPerAddress == RateLimitRule(requests: 100, per: .seconds(60)))
        #expect(configuration.sessions.rateLimits.refreshPerUser == RateLimitRule(requests: 10, per: .seconds(3600)))
        #expect(configuration.listening.trustedProxyCount == 1)
        #expect(configuration.listening.publicURL?.absoluteString == "https://auth.example")
        #expect(configuration.providers.facebook?.validityCheckInterval == .seconds(43200))
        #expect(configuration.providers.facebook?.profileMaxAge == .seconds(1800))
        #expect(configuration.providers.facebook?.signedRequestMaxAge == .seconds(600))
        #expect(configuration.providers.timeout == .milliseconds(2500))
        #expect(configuration.providers.maxAttempts == 2)
        #expect(configuration.storage.tokenEncryptionKey != nil)
        #expect(configuration.listening.maximumBodySize == 4096)
        #expect(configuration.listening.drainDelay == .zero)
        // Every variable read here is documented.
        let documented = Set(ServerConfiguration.environmentVariables.flatMap { [$0.name] + $0.aliases })
        #expect(Set(environment.keys).isSubset(of: documented))
    }

    /// docs/server.md's table of variables, as written.
    static func documentedTable() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/server.md"), encoding: .utf8)
        let after = try #require(page.components(separatedBy: "## Environment variables").dropFirst().first)
        let section = after.components(separatedBy: "\n## ").first ?? ""
        return section.components(separatedBy: "\n").filter { $0.hasPrefix("|") }.joined(separator: "\n")
    }

    @Test func theDocumentedTableIsTheCodes() throws {
        // Names, defaults and meanings: docs/server.md holds `mend-server env --markdown`'s output.
        #expect(try Self.documentedTable() == ServerConfiguration.environmentTable(markdown: true))
        #expect(ServerConfiguration.environmentVariables.count >= 50)
        let names = ServerConfiguration.environmentVariables.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count, "a name listed twice")
    }

    @Test func theDefaultsAreTheGroupsOwn() throws {
        // The table's defaults are read from the groups' initializers, and they are what loading gives.
        let configuration = try ServerConfiguration.load(environment: Self.minimal)
        func documented(_ name: String) -> String? {
            ServerConfiguration.environmentVariables.first { $0.name == name }?.defaultValue
        }
        #expect(documented("MEND_ACCESS_TOKEN_TTL") == "`900s`")
        #expect(documented("MEND_SESSION_IDLE_TTL") == "`30d`")
        #expect(documented("MEND_SESSION_MAX_TTL") == "`90d`")
        #expect(documented("MEND_VALIDITY_CHECK_INTERVAL") == "`24h`")
        #expect(documented("MEND_RATE_LIMIT_LOGIN_IP") == "`30/60s`")
        #expect(documented("MEND_HOST") == "`\(configuration.listening.host)`")
        #expect(documented("DATABASE_URL") == "`\(configuration.storage.databaseURL)`")
        #expect(documented("MEND_PROVIDER_MAX_ATTEMPTS") == "`\(configuration.providers.maxAttempts)`")
    }

    /// Everything `dump` shows of a configuration (secrets included: `Secret` hides them from descriptions only).
    static func fingerprint(_ configuration: ServerConfiguration) -> String {
        var text = ""
        dump(configuration, to: &text)
        return text
    }

    @Test func everyVariableAndAliasChangesTheConfiguration() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ contents: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(contents.utf8).write(to: url)
            return url.path
        }
        // A base with every provider, so that each provider's own variables have something to change.
        var base = Self.minimal
        base.merge(
            [
                "MEND_APPLE_CLIENT_IDS": "com.example.app", "MEND_GOOGLE_CLIENT_IDS": "web.apps.example",
                "MEND_LIMITED_LOGIN": "true", "MEND_APPLE_TEAM_ID": "TEAM1", "MEND_APPLE_KEY_ID": "KEY1",
                "MEND_APPLE_PRIVATE_KEY_FILE": try file("a.p8", P256.Signing.PrivateKey().pemRepresentation),
                "MEND_GOOGLE_SERVER_CLIENT_ID": "server.apps.example", "MEND_GOOGLE_SERVER_CLIENT_SECRET": "g-secret",
                "MEND_PROVIDER_RECORDING": "/tmp/provider.har", "MEND_PASSKEY_RP_ID": "example.com",
            ], uniquingKeysWith: { $1 })
        let changed: [String: String] = [
            "MEND_CONFIG_FILE": try file("c.json", #"{"MEND_PORT": 7000}"#),
            "MEND_HOST": "0.0.0.0", "MEND_PORT": "9090", "MEND_APP_ID": "222", "MEND_APP_SECRET": "other-secret",
            "MEND_APP_SECRET_FILE": try file("secret", "file-secret\n"), "MEND_GRAPH_URL": "http://127.0.0.1:1",
            "DATABASE_URL_FILE": try file("database", "sqlite::memory:\n"),
            "MEND_SIGNING_KEYS_FILE": try file("keys", SigningKeyConfiguration.generate(keyID: "f1").environmentValue),
            "MEND_TOKEN_ENCRYPTION_KEY_FILE": try file("aes", Data(repeating: 9, count: 32).base64EncodedString()),
            "MEND_GOOGLE_SERVER_CLIENT_SECRET_FILE": try file("google", "g-file-secret"),
            "MEND_LOG_LEVEL": "debug",
            "MEND_GRAPH_VERSION": "v24.0", "MEND_REQUIRED_SCOPES": "email",
            "MEND_REDIRECT_URIS": "https://b.example/cb",
            "DATABASE_URL": "sqlite::memory:", "MEND_DATABASE_URL": "sqlite::memory:",
            "MEND_SIGNING_KEYS": SigningKeyConfiguration.generate(keyID: "k1").environmentValue,
            "MEND_ISSUER": "https://auth.example", "MEND_AUDIENCE": "https://api.example",
            "MEND_ACCESS_TOKEN_TTL": "5m", "MEND_REFRESH_TOKEN_TTL": "7d", "MEND_REFRESH_REUSE_GRACE": "2s",
            "MEND_SESSION_IDLE_TTL": "8d", "MEND_SESSION_MAX_TTL": "40d", "MEND_RETURN_PROVIDER_TOKEN": "true",
            "MEND_LONG_LIVED_EXCHANGE": "false",
            "MEND_RATE_LIMIT_LOGIN_IP": "5/min", "MEND_RATE_LIMIT_LOGIN_USER": "off",
            "MEND_RATE_LIMIT_REFRESH_IP": "1/h", "MEND_RATE_LIMIT_REFRESH_USER": "2/h", "MEND_REQUIRE_PKCE": "false",
            "MEND_TOKEN_CACHE_SIZE": "0", "MEND_AUDIT_RETENTION": "30d", "MEND_DPOP": "required",
            "MEND_DPOP_NONCE": "true",
            "MEND_ADMIN_TOKENS": AdminToken.generate(id: "ops").configuration.environmentValue,
            "MEND_RATE_LIMIT_ADMIN": "10/min",
            "MEND_PROVIDER_RECORDING": "/tmp/other.har", "MEND_PROVIDER_RECORDING_MODE": "newEpisodes",
            "MEND_TRUSTED_PROXIES": "2", "MEND_TRUST_FORWARDED_FOR": "true", "MEND_PUBLIC_URL": "https://auth.example",
            "MEND_VALIDITY_CHECK_INTERVAL": "12h", "MEND_PROFILE_MAX_AGE": "30m", "MEND_SIGNED_REQUEST_MAX_AGE": "10m",
            "MEND_PROVIDER_TIMEOUT": "2500ms", "MEND_PROVIDER_MAX_ATTEMPTS": "2",
            "MEND_TOKEN_ENCRYPTION_KEY": Data(repeating: 7, count: 32).base64EncodedString(),
            "MEND_MAX_BODY_SIZE": "4096", "MEND_DRAIN_DELAY": "30s", "MEND_APPLE_CLIENT_IDS": "com.example.other",
            "MEND_APPLE_ISSUER": "https://apple.example", "MEND_APPLE_JWKS_URL": "https://apple.example/keys",
            "MEND_APPLE_TEAM_ID": "TEAM2", "MEND_APPLE_KEY_ID": "KEY2",
            "MEND_APPLE_PRIVATE_KEY_FILE": try file("b.p8", P256.Signing.PrivateKey().pemRepresentation),
            "MEND_GOOGLE_CLIENT_IDS": "other.apps.example", "MEND_GOOGLE_ISSUER": "https://google.example",
            "MEND_GOOGLE_JWKS_URL": "https://google.example/certs", "MEND_GOOGLE_SERVER_CLIENT_ID": "other.server",
            "MEND_GOOGLE_SERVER_CLIENT_SECRET": "g-other", "MEND_GOOGLE_TOKEN_URL": "https://google.example/token",
            "MEND_GOOGLE_REVOCATION_URL": "https://google.example/revoke", "MEND_LIMITED_LOGIN": "false",
            "MEND_LIMITED_LOGIN_ISSUER": "https://facebook.example",
            "MEND_LIMITED_LOGIN_JWKS_URL": "https://facebook.example/jwks",
            "MEND_PASSKEY_RP_ID": "login.example.com", "MEND_PASSKEY_RP_NAME": "Example",
            "MEND_PASSKEY_ORIGINS": "https://example.com,http://127.0.0.1:8080",
            "MEND_PASSKEY_USER_VERIFICATION": "preferred", "MEND_PASSKEY_COUNTER_POLICY": "refuse-device-bound",
            "MEND_PASSKEY_REAUTH_WINDOW": "10m", "MEND_PASSKEY_CHALLENGE_TTL": "2m",
            "MEND_PASSKEY_RELATED_ORIGINS": "https://example.co.uk",
            "MEND_PASSKEY_APPLE_APPS": "ABCDE12345.com.example.app",
            "MEND_PASSKEY_ANDROID_APPS": "com.example.app:"
                + Array(repeating: "AB", count: 32).joined(separator: ":"),
        ]
        // Each variable, alias and secret's file form (`…_FILE`, which yields to the variable itself).
        let variables = ServerConfiguration.environmentVariables
        let listed = variables.flatMap { [$0.name] + $0.aliases + ($0.fileVariant.map { [$0] } ?? []) }
        #expect(Set(listed).subtracting(changed.keys).isEmpty, "a variable without a value here")
        let before = Self.fingerprint(try ServerConfiguration.load(environment: base))
        for name in listed {
            var environment = base
            environment[name] = changed[name]
            if let variable = variables.first(where: { $0.fileVariant == name }) { environment[variable.name] = nil }
            let after = Self.fingerprint(try ServerConfiguration.load(environment: environment))
            #expect(after != before, "\(name) changed nothing")
        }
    }

    @Test func theSwiftExampleOfTheDocsIsValid() throws {
        // docs/server.md, "In Swift": a backend for Sign in with Apple only.
        var configuration = ServerConfiguration(
            sessions: .init(audience: "https://api.example", allowedRedirectURIs: ["com.example.app:/callback"]),
            providers: .init(idTokenIssuers: [.apple(clientIDs: ["com.example.app"])]))
        configuration.storage.databaseURL = "postgres://mend:pw@db.internal/mend"
        try configuration.validate()
        #expect(configuration.accessTokenAudience == "https://api.example")
        #expect(RequestSchema.codeLoginProviders(configuration.providers).isEmpty)
    }

    @Test func aServerWithoutFacebookNeedsAnotherProvider() throws {
        let redirect = ["MEND_REDIRECT_URIS": "https://app.example/callback"]
        #expect {
            try ServerConfiguration.load(environment: redirect)
        } throws: { "\($0)".contains("MEND_APP_ID") }
        let google = try ServerConfiguration.load(
            environment: redirect.merging(["MEND_GOOGLE_CLIENT_IDS": "web"]) { $1 })
        #expect(google.providers.facebook == nil)
        #expect(google.providers.names == ["google"])
        #expect(google.accessTokenAudience == "mend-server", "without an app id, the issuer")
        #expect {
            try ServerConfiguration.load(environment: redirect.merging(["MEND_APP_SECRET": "s3cret-value"]) { $1 })
        } throws: { "\($0)".contains("MEND_APP_ID") && !"\($0)".contains("s3cret-value") }
        #expect {
            try ServerConfiguration.load(
                environment: redirect.merging(["MEND_GOOGLE_CLIENT_IDS": "web", "MEND_LIMITED_LOGIN": "true"]) { $1 })
        } throws: { "\($0)".contains("MEND_LIMITED_LOGIN") }
    }

    @Test("A secret's file form yields to the secret; a name wins over its alias, wherever each is set")
    func precedence() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("secret")
        try Data("from-file\n".utf8).write(to: secretFile)
        let both = try ServerConfiguration.load(
            environment: Self.minimal.merging(["MEND_APP_SECRET_FILE": secretFile.path]) { $1 })
        #expect(both.providers.facebook?.appSecret.value == "s3cret-value")
        var fileOnly = Self.minimal
        fileOnly["MEND_APP_SECRET"] = nil
        fileOnly["MEND_APP_SECRET_FILE"] = secretFile.path
        #expect(try ServerConfiguration.load(environment: fileOnly).providers.facebook?.appSecret.value == "from-file")
        fileOnly["MEND_APP_SECRET_FILE"] = directory.appendingPathComponent("missing").path
        #expect {
            try ServerConfiguration.load(environment: fileOnly)
        } throws: { "\($0)".contains("MEND_APP_SECRET_FILE: cannot read") }

        // The alias in the environment, the name in the file: the name wins.
        let config = directory.appendingPathComponent("c.json")
        try Data(#"{"MEND_SESSION_IDLE_TTL": "9d"}"#.utf8).write(to: config)
        let aliased = try ServerConfiguration.load(
            environment: Self.minimal.merging(["MEND_REFRESH_TOKEN_TTL": "2d", "MEND_CONFIG_FILE": config.path]) { $1 })
        #expect(aliased.sessions.idleLifetime == .seconds(9 * 86400))
        // --host and --port (overrides) win over the environment.
        let overridden = try ServerConfiguration.load(
            environment: Self.minimal.merging(["MEND_PORT": "8080"]) { $1 }, overrides: ["MEND_PORT": "9"])
        #expect(overridden.listening.port == 9)
    }

    @Test("An unknown MEND_* name is named with the closest known one, from the environment and from the file")
    func unknownNames() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("c.json")
        try Data(#"{"MEND_REDIRECT_URI": "https://a.example/cb"}"#.utf8).write(to: config)
        let warnings = ServerConfiguration.unknownVariableWarnings(environment: [
            "MEND_PROT": "9000", "MEND_CONFIG_FILE": config.path, "MEND_ZZZZZZZZZZZZZZZ": "1", "HOME": "/root",
            "MEND_PORT": "1", "MEND_TEST_POSTGRES_URL": "postgres://x",
        ])
        #expect(
            warnings == [
                "MEND_PROT (environment) is not a mend-server variable: did you mean MEND_PORT?",
                "MEND_ZZZZZZZZZZZZZZZ (environment) is not a mend-server variable (mend-server env lists them)",
                "MEND_REDIRECT_URI (MEND_CONFIG_FILE) is not a mend-server variable: did you mean MEND_REDIRECT_URIS?",
            ])
    }

    @Test func theEnvironmentWinsOverTheFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mend-\(UUID().uuidString).json")
        try Data(
            #"{"MEND_APP_ID": "from-file", "MEND_APP_SECRET": "file-secret", "MEND_REDIRECT_URIS": ["https://a.example/cb", "https://b.example/cb"], "MEND_PORT": 7000, "MEND_RETURN_PROVIDER_TOKEN": true}"#
                .utf8
        ).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try ServerConfiguration.load(environment: [
            "MEND_CONFIG_FILE": file.path, "MEND_APP_ID": "from-env",
        ])
        #expect(configuration.providers.facebook?.appID == "from-env")
        #expect(configuration.providers.facebook?.appSecret.value == "file-secret")
        #expect(configuration.sessions.allowedRedirectURIs == ["https://a.example/cb", "https://b.example/cb"])
        #expect(configuration.listening.port == 7000)
        #expect(configuration.providers.returnsProviderToken)
    }

    @Test(arguments: [
        ("MEND_APP_ID", "", "MEND_APP_ID"), ("MEND_APP_SECRET", "", "MEND_APP_SECRET"),
        ("MEND_REDIRECT_URIS", "", "MEND_REDIRECT_URIS"), ("DATABASE_URL", "mysql://x", "DATABASE_URL"),
        ("MEND_PORT", "70000", "MEND_PORT"), ("MEND_ACCESS_TOKEN_TTL", "soon", "MEND_ACCESS_TOKEN_TTL"),
        ("MEND_SIGNING_KEYS", "k1:HS256:abc", "MEND_SIGNING_KEYS"), ("MEND_RATE_LIMIT_LOGIN_IP", "lots", "rate limit"),
        ("MEND_TOKEN_ENCRYPTION_KEY", "short", "MEND_TOKEN_ENCRYPTION_KEY"),
        ("MEND_TRUSTED_PROXIES", "-1", "MEND_TRUSTED_PROXIES"), ("MEND_TRUSTED_PROXIES", "two", "MEND_TRUSTED_PROXIES"),
        ("MEND_DRAIN_DELAY", "soon", "MEND_DRAIN_DELAY"),
    ])
    func namesTheWrongVariable(_ name: String, _ value: String, _ mentioned: String) {
        var environment = Self.minimal
        environment[name] = value
        #expect {
            try ServerConfiguration.load(environment: environment)
        } throws: { error in
            "\(error)".contains(mentioned) && !"\(error)".contains("s3cret-value")
        }
    }

    @Test("Without MEND_REDIRECT_URIS the error names the value the CLI's loopback login needs")
    func aMissingRedirectListNamesTheLoopbackValue() {
        var environment = Self.minimal
        environment["MEND_REDIRECT_URIS"] = nil
        #expect {
            try ServerConfiguration.load(environment: environment)
        } throws: { error in
            "\(error)".contains("MEND_REDIRECT_URIS is required") && "\(error)".contains("http://127.0.0.1/callback")
        }
    }

    @Test func trustedProxiesCountsProxiesAndTheOldFlagMeansOne() throws {
        #expect(try ServerConfiguration.load(environment: Self.minimal).listening.trustedProxyCount == 0)
        var environment = Self.minimal
        environment["MEND_TRUSTED_PROXIES"] = "2"
        #expect(try ServerConfiguration.load(environment: environment).listening.trustedProxyCount == 2)
        environment["MEND_TRUST_FORWARDED_FOR"] = "true"
        #expect(
            try ServerConfiguration.load(environment: environment).listening.trustedProxyCount == 2, "the count wins")
        environment["MEND_TRUSTED_PROXIES"] = nil
        #expect(try ServerConfiguration.load(environment: environment).listening.trustedProxyCount == 1)
    }

    @Test(arguments: [
        ("sqlite::memory:", DatabaseLocation.sqliteMemory),
        ("sqlite:///var/lib/mend.sqlite", .sqliteFile(path: "/var/lib/mend.sqlite")),
        ("sqlite://mend.sqlite", .sqliteFile(path: "mend.sqlite")),
        ("postgres://u:p@h/db", .postgres(url: "postgres://u:p@h/db")),
        ("postgresql://u:p@h/db", .postgres(url: "postgresql://u:p@h/db")),
    ])
    func databaseURLs(_ text: String, _ location: DatabaseLocation) throws {
        #expect(try DatabaseLocation.parse(text) == location)
        #expect(!location.redactedDescription.contains(":p@"))
    }
}
