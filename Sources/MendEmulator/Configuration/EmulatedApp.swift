/// An app registered with the emulated provider: its id, secret, redirect URIs and limits.
public struct EmulatedApp: Sendable, Codable, Hashable {
    /// The app id (`client_id`).
    public var id: String
    /// The app secret (`client_secret`); it never appears in the request log.
    public var secret: String
    /// The app's display name, shown on the consent page and in `debug_token`.
    public var name: String
    /// The redirect URIs the login dialog accepts, compared exactly (loopback `http` URIs may use any port).
    public var redirectURIs: [String]
    /// The client token (for the app's client-side calls, `app_id|client_token`).
    public var clientToken: String
    /// Whether Graph calls with a user token must carry a valid `appsecret_proof`.
    public var requiresAppSecretProof: Bool
    /// The business id that the `X-Business-Use-Case-Usage` header reports this app under.
    public var businessID: String
    /// Call limits per rolling hour; `nil` means unlimited.
    public var limits: RateLimits
    /// The error configuration that the app node serves as `ios_sdk_error_categories`; `nil` means the one derived
    /// from Mend's catalog.
    public var errorConfiguration: [ErrorCategoryConfiguration]?

    /// Call limits per rolling hour.
    public struct RateLimits: Sendable, Codable, Hashable {
        /// Calls of the app (all users) per hour; passing it gives code 4.
        public var appCallsPerHour: Int?
        /// Calls of one user of the app per hour; passing it gives code 17.
        public var userCallsPerHour: Int?
        /// Calls under the app's business id per hour (the "pages" use case); passing it gives code 80001.
        public var businessCallsPerHour: Int?

        /// Creates limits; `nil` means unlimited.
        public init(appCallsPerHour: Int? = nil, userCallsPerHour: Int? = nil, businessCallsPerHour: Int? = nil) {
            self.appCallsPerHour = appCallsPerHour
            self.userCallsPerHour = userCallsPerHour
            self.businessCallsPerHour = businessCallsPerHour
        }
    }

    /// Creates an app.
    public init(
        id: String, secret: String, name: String, redirectURIs: [String], clientToken: String,
        requiresAppSecretProof: Bool = false, businessID: String? = nil, limits: RateLimits = RateLimits(),
        errorConfiguration: [ErrorCategoryConfiguration]? = nil
    ) {
        self.id = id
        self.secret = secret
        self.name = name
        self.redirectURIs = redirectURIs
        self.clientToken = clientToken
        self.requiresAppSecretProof = requiresAppSecretProof
        self.businessID = businessID ?? "9\(id.dropFirst())"
        self.limits = limits
        self.errorConfiguration = errorConfiguration
    }

    /// The app that the emulator registers when the configuration names none.
    public static let `default` = EmulatedApp(
        id: "111111111111111",
        secret: "0123456789abcdef0123456789abcdef",
        name: "Mend Emulator App",
        redirectURIs: [
            "http://127.0.0.1/callback", "http://localhost/callback", "https://localhost/callback",
            "fb111111111111111://authorize", "https://app.example/callback",
        ],
        clientToken: "fedcba9876543210fedcba9876543210")

    enum CodingKeys: String, CodingKey {
        case id, secret, name, redirectURIs, clientToken, requiresAppSecretProof, businessID, limits
        case errorConfiguration
    }

    /// Decodes an app; only `id` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(String.self, forKey: .id)
        self.init(
            id: id,
            secret: try container.decodeIfPresent(String.self, forKey: .secret) ?? "secret-of-\(id)",
            name: try container.decodeIfPresent(String.self, forKey: .name) ?? "App \(id)",
            redirectURIs: try container.decodeIfPresent([String].self, forKey: .redirectURIs)
                ?? EmulatedApp.default.redirectURIs.filter { !$0.hasPrefix("fb") } + ["fb\(id)://authorize"],
            clientToken: try container.decodeIfPresent(String.self, forKey: .clientToken) ?? "client-token-of-\(id)",
            requiresAppSecretProof: try container.decodeIfPresent(Bool.self, forKey: .requiresAppSecretProof) ?? false,
            businessID: try container.decodeIfPresent(String.self, forKey: .businessID),
            limits: try container.decodeIfPresent(RateLimits.self, forKey: .limits) ?? RateLimits(),
            errorConfiguration: try container.decodeIfPresent(
                [ErrorCategoryConfiguration].self, forKey: .errorConfiguration))
    }
}

/// One category of the `ios_sdk_error_categories` error configuration that the app node serves.
public struct ErrorCategoryConfiguration: Sendable, Codable, Hashable {
    /// One code and its subcodes (none means any subcode).
    public struct Item: Sendable, Codable, Hashable {
        /// The Graph code.
        public var code: Int
        /// The subcodes; empty or absent means any.
        public var subcodes: [Int]?
        /// Creates an item.
        public init(code: Int, subcodes: [Int]? = nil) {
            self.code = code
            self.subcodes = subcodes
        }
    }

    /// `transient`, `login` (recoverable) or `other`.
    public var name: String
    /// The codes of the category.
    public var items: [Item]
    /// The localized recovery suggestion.
    public var recoveryMessage: String?
    /// The localized recovery option labels.
    public var recoveryOptions: [String]?

    /// Creates a category.
    public init(name: String, items: [Item], recoveryMessage: String? = nil, recoveryOptions: [String]? = nil) {
        self.name = name
        self.items = items
        self.recoveryMessage = recoveryMessage
        self.recoveryOptions = recoveryOptions
    }

    enum CodingKeys: String, CodingKey {
        case name, items
        case recoveryMessage = "recovery_message"
        case recoveryOptions = "recovery_options"
    }
}
