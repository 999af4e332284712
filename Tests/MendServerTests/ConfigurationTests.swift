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
        #expect(configuration.appID == "111")
        #expect(configuration.appSecret.value == "s3cret-value")
        #expect("\(configuration.appSecret)" == "<redacted>")
        #expect(configuration.allowedRedirectURIs == ["https://app.example/callback"])
        #expect(configuration.databaseURL == "sqlite://mend.sqlite")
        #expect(configuration.accessTokenLifetime == .seconds(900))
        #expect(configuration.refreshTokenLifetime == .seconds(2_592_000))
        #expect(configuration.refreshReuseGrace == .seconds(60))
        #expect(configuration.returnsProviderToken == false)
        #expect(configuration.validityCheckInterval == .seconds(86400))
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
                "MEND_MAX_BODY_SIZE": "4096",
            ], uniquingKeysWith: { $1 })
        let configuration = try ServerConfiguration.load(environment: environment)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9090)
        #expect(configuration.graphURL.absoluteString == "http://127.0.0.1:1234")
        #expect(configuration.graphVersion == "v24.0")
        #expect(configuration.requiredScopes == ["email", "user_friends"])
        #expect(configuration.databaseURL.hasPrefix("postgres://"))
        #expect(configuration.signingKeys.map(\.keyID) == ["k1", "k0"])
        #expect(configuration.signingKeys.map(\.algorithm) == [.eddsa, .es256])
        #expect(configuration.issuer == "https://auth.example")
        #expect(configuration.audience == "https://api.example")
        #expect(configuration.accessTokenLifetime == .seconds(300))
        #expect(configuration.refreshTokenLifetime == .seconds(7 * 86400))
        #expect(configuration.refreshReuseGrace == .seconds(2))
        #expect(configuration.returnsProviderToken)
        #expect(!configuration.exchangesForLongLivedToken)
        #expect(configuration.rateLimits.loginPerAddress == RateLimitRule(requests: 5, per: .seconds(60)))
        #expect(configuration.rateLimits.loginPerUser == nil)
        #expect(configuration.rateLimits.refreshPerAddress == RateLimitRule(requests: 100, per: .seconds(60)))
        #expect(configuration.rateLimits.refreshPerUser == RateLimitRule(requests: 10, per: .seconds(3600)))
        #expect(configuration.trustedProxyCount == 1)
        #expect(configuration.publicURL?.absoluteString == "https://auth.example")
        #expect(configuration.validityCheckInterval == .seconds(43200))
        #expect(configuration.profileMaxAge == .seconds(1800))
        #expect(configuration.signedRequestMaxAge == .seconds(600))
        #expect(configuration.providerTimeout == .milliseconds(2500))
        #expect(configuration.providerMaxAttempts == 2)
        #expect(configuration.tokenEncryptionKey != nil)
        #expect(configuration.maximumBodySize == 4096)
        // Every variable read here is documented.
        let documented = Set(ServerConfiguration.environmentVariables.map(\.name))
        #expect(Set(environment.keys).isSubset(of: documented))
    }

    /// The variables docs/server.md's table lists, by the names in its first column (`A` / `B`, `A`, `B`, `A` (or `B`)).
    static func documentedVariables() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/server.md"), encoding: .utf8)
        let after = try #require(page.components(separatedBy: "## Environment variables").dropFirst().first)
        let section = after.components(separatedBy: "\n## ").first ?? ""
        var names = Set<String>()
        for line in section.components(separatedBy: "\n") where line.hasPrefix("| `") {
            let firstColumn = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for part in firstColumn.split(separator: "`") where part.allSatisfy({ $0.isUppercase || $0 == "_" }) {
                names.insert(String(part))
            }
        }
        return names
    }

    @Test func theDocumentedTableAndTheCodeNameTheSameVariables() throws {
        let documented = try Self.documentedVariables()
        let code = Set(ServerConfiguration.environmentVariables.map(\.name))
        #expect(documented.subtracting(code) == ["MEND_DATABASE_URL"], "documented, but not in environmentVariables")
        #expect(code.subtracting(documented).isEmpty, "in environmentVariables, but not in docs/server.md")
        #expect(code.count >= 50)
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
        #expect(configuration.appID == "from-env")
        #expect(configuration.appSecret.value == "file-secret")
        #expect(configuration.allowedRedirectURIs == ["https://a.example/cb", "https://b.example/cb"])
        #expect(configuration.port == 7000)
        #expect(configuration.returnsProviderToken)
    }

    @Test(arguments: [
        ("MEND_APP_ID", "", "MEND_APP_ID"), ("MEND_APP_SECRET", "", "MEND_APP_SECRET"),
        ("MEND_REDIRECT_URIS", "", "MEND_REDIRECT_URIS"), ("DATABASE_URL", "mysql://x", "DATABASE_URL"),
        ("MEND_PORT", "70000", "MEND_PORT"), ("MEND_ACCESS_TOKEN_TTL", "soon", "MEND_ACCESS_TOKEN_TTL"),
        ("MEND_SIGNING_KEYS", "k1:HS256:abc", "MEND_SIGNING_KEYS"), ("MEND_RATE_LIMIT_LOGIN_IP", "lots", "rate limit"),
        ("MEND_TOKEN_ENCRYPTION_KEY", "short", "MEND_TOKEN_ENCRYPTION_KEY"),
        ("MEND_TRUSTED_PROXIES", "-1", "MEND_TRUSTED_PROXIES"), ("MEND_TRUSTED_PROXIES", "two", "MEND_TRUSTED_PROXIES"),
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

    @Test func trustedProxiesCountsProxiesAndTheOldFlagMeansOne() throws {
        #expect(try ServerConfiguration.load(environment: Self.minimal).trustedProxyCount == 0)
        var environment = Self.minimal
        environment["MEND_TRUSTED_PROXIES"] = "2"
        #expect(try ServerConfiguration.load(environment: environment).trustedProxyCount == 2)
        environment["MEND_TRUST_FORWARDED_FOR"] = "true"
        #expect(try ServerConfiguration.load(environment: environment).trustedProxyCount == 2, "the count wins")
        environment["MEND_TRUSTED_PROXIES"] = nil
        #expect(try ServerConfiguration.load(environment: environment).trustedProxyCount == 1)
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
