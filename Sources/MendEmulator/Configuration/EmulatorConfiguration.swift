public import Foundation
public import MendGraphAPI

/// Everything the emulator starts from: where it listens, its seed, its apps and users, and its modes.
///
/// The default configuration works as it is: one app (``EmulatedApp/default``), three users
/// (``TestUser/defaults``), test mode on, seed 1, listening on 127.0.0.1 at a port the system picks.
public struct EmulatorConfiguration: Sendable, Codable {
    /// The address to bind: loopback unless said otherwise.
    public var host: String
    /// The port; 0 lets the system pick one.
    public var port: Int
    /// The seed of every generated id, token, code and trace id.
    public var seed: UInt64
    /// The Graph API version the emulator announces (`facebook-api-version`); any `vN.M` prefix is accepted.
    public var graphVersion: String
    /// Whether the control API under `/_emulator/` is enabled.
    public var testMode: Bool
    /// The registered apps; the first one is the default.
    public var apps: [EmulatedApp]
    /// The test users; the first one logs in unless the consent page or the auto-consent says otherwise.
    public var users: [TestUser]
    /// How the login dialog answers.
    public var autoConsent: AutoConsent
    /// The id of the user that auto-consent logs in (the first user when `nil`).
    public var autoConsentUserID: String?
    /// The emulator time at the start; `nil` means the wall clock at the start.
    public var startTime: Date?
    /// Whether real time moves the emulator's clock, or only ``Emulator/advanceClock(by:)``.
    public var clockMode: EmulatorClock.Mode
    /// The issuer: the `iss` of id_tokens and of authorization responses (RFC 9207), and the discovery document's
    /// `issuer`. The default, `https://www.facebook.com`, is the provider's own; ``baseURLIssuer`` (`"self"`) makes
    /// it the emulator's base URL as each client reaches it (`http://127.0.0.1:<port>`), so that OpenID Connect
    /// discovery at that URL finds a document that names it (OpenID Connect Discovery §4.3).
    public var issuer: String
    /// The lifetime of tokens from the login dialog and the code exchange, in seconds (about 2 hours).
    public var shortLivedTokenLifetime: Int
    /// The lifetime of long-lived tokens (`fb_exchange_token`), in seconds (about 60 days).
    public var longLivedTokenLifetime: Int
    /// The lifetime of authorization codes, in seconds.
    public var codeLifetime: Int
    /// How long data access lasts after a login, in seconds (90 days).
    public var dataAccessLifetime: Int
    /// The REST object API's API key (`Appacitive-Apikey` header).
    public var restAPIKey: String
    /// Whether the REST API's subscription is valid; when false, every REST call fails with 402.
    public var restSubscriptionValid: Bool
    /// REST calls allowed per minute before 403 UsageLimitExceeded; `nil` means unlimited.
    public var restCallsPerMinute: Int?
    /// How many entries the request log keeps.
    public var requestLogLimit: Int
    /// The clients of the emulated OpenID Connect issuers (Apple, Google); ``EmulatedIssuerClient/defaults`` unless
    /// said otherwise.
    public var issuerClients: [EmulatedIssuerClient]
    /// How long a device login's code (`device/login`, RFC 8628 `device/code`) can be entered, in seconds (the
    /// provider's 420).
    public var deviceCodeLifetime: Int
    /// The polling interval that device login announces, in seconds (the provider's 5); a poll sooner than the
    /// interval is answered "slow down", and the interval grows by 5 seconds (RFC 8628 §3.5).
    public var deviceLoginInterval: Int
    /// Whether the emulated OpenID Connect issuers speak DPoP (RFC 9449) from the start: discovery advertises ES256,
    /// a proved token request gets bound tokens, userinfo checks proofs. Off by default, as at Apple and Google;
    /// `POST /_emulator/issuers/dpop` turns it on and off, requires nonces and rotates them while running.
    public var issuerDPoP: Bool = false

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 0, seed: UInt64 = 1, graphVersion: String = GraphAPI.defaultVersion,
        testMode: Bool = true, apps: [EmulatedApp] = [.default], users: [TestUser] = TestUser.defaults,
        autoConsent: AutoConsent = .manual, autoConsentUserID: String? = nil, startTime: Date? = nil,
        clockMode: EmulatorClock.Mode = .running, issuer: String = "https://www.facebook.com",
        shortLivedTokenLifetime: Int = 7_200, longLivedTokenLifetime: Int = 5_183_944, codeLifetime: Int = 600,
        dataAccessLifetime: Int = 7_776_000, restAPIKey: String = "emulator-api-key",
        restSubscriptionValid: Bool = true, restCallsPerMinute: Int? = nil, requestLogLimit: Int = 2_000,
        issuerClients: [EmulatedIssuerClient] = EmulatedIssuerClient.defaults, deviceCodeLifetime: Int = 420,
        deviceLoginInterval: Int = 5
    ) {
        self.host = host
        self.port = port
        self.seed = seed
        self.graphVersion = graphVersion
        self.testMode = testMode
        self.apps = apps.isEmpty ? [.default] : apps
        self.users = users.isEmpty ? TestUser.defaults : users
        self.autoConsent = autoConsent
        self.autoConsentUserID = autoConsentUserID
        self.startTime = startTime
        self.clockMode = clockMode
        self.issuer = issuer
        self.shortLivedTokenLifetime = shortLivedTokenLifetime
        self.longLivedTokenLifetime = longLivedTokenLifetime
        self.codeLifetime = codeLifetime
        self.dataAccessLifetime = dataAccessLifetime
        self.restAPIKey = restAPIKey
        self.restSubscriptionValid = restSubscriptionValid
        self.restCallsPerMinute = restCallsPerMinute
        self.requestLogLimit = requestLogLimit
        self.issuerClients = issuerClients
        self.deviceCodeLifetime = deviceCodeLifetime
        self.deviceLoginInterval = deviceLoginInterval
    }

    /// Decodes a configuration file (JSON); every key is optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = EmulatorConfiguration()
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        self.init(
            host: try value(.host, defaults.host), port: try value(.port, defaults.port),
            seed: try value(.seed, defaults.seed), graphVersion: try value(.graphVersion, defaults.graphVersion),
            testMode: try value(.testMode, defaults.testMode), apps: try value(.apps, defaults.apps),
            users: try value(.users, defaults.users), autoConsent: try value(.autoConsent, defaults.autoConsent),
            autoConsentUserID: try container.decodeIfPresent(String.self, forKey: .autoConsentUserID),
            startTime: try container.decodeIfPresent(Date.self, forKey: .startTime),
            clockMode: try value(.clockMode, defaults.clockMode), issuer: try value(.issuer, defaults.issuer),
            shortLivedTokenLifetime: try value(.shortLivedTokenLifetime, defaults.shortLivedTokenLifetime),
            longLivedTokenLifetime: try value(.longLivedTokenLifetime, defaults.longLivedTokenLifetime),
            codeLifetime: try value(.codeLifetime, defaults.codeLifetime),
            dataAccessLifetime: try value(.dataAccessLifetime, defaults.dataAccessLifetime),
            restAPIKey: try value(.restAPIKey, defaults.restAPIKey),
            restSubscriptionValid: try value(.restSubscriptionValid, defaults.restSubscriptionValid),
            restCallsPerMinute: try container.decodeIfPresent(Int.self, forKey: .restCallsPerMinute),
            requestLogLimit: try value(.requestLogLimit, defaults.requestLogLimit),
            issuerClients: try value(.issuerClients, defaults.issuerClients),
            deviceCodeLifetime: try value(.deviceCodeLifetime, defaults.deviceCodeLifetime),
            deviceLoginInterval: try value(.deviceLoginInterval, defaults.deviceLoginInterval))
        self.issuerDPoP = try value(.issuerDPoP, defaults.issuerDPoP)
    }

    /// Reads a configuration file (JSON, every key optional; dates in ISO 8601).
    public static func load(from url: URL) throws -> EmulatorConfiguration {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(EmulatorConfiguration.self, from: Data(contentsOf: url))
    }

    /// The ``issuer`` that stands for the emulator's own base URL, as each request reaches it.
    public static let baseURLIssuer = "self"

    /// The default app (the first one).
    public var defaultApp: EmulatedApp { apps[0] }
}
