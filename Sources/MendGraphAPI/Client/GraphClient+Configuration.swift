public import Foundation
public import MendCore
public import MendHTTP

extension GraphClient {
    /// How a Graph client reaches the provider and handles its errors.
    public struct Configuration: Sendable {
        /// The Graph API's base URL: the provider's by default, the emulator's in tests.
        public var graphURL: URL
        /// The API version (`v25.0`).
        public var version: String
        /// The app id: the key of the rate-limit gate, and the node of the error configuration.
        public var appID: String?
        /// The catalog that classifies errors (`ErrorCatalog.graph` by default); the provider's error
        /// configuration, when fetched, is merged over it.
        public var catalog: ErrorCatalog
        /// Whether token errors are recovered (clear the token, run the attempter, replay once) and transient errors
        /// retried; requests may opt out with ``GraphRequest/Flags-swift.struct/skipRecovery``.
        public var automaticRecovery: Bool
        /// The retry policy for transient errors (`RetryPolicy.never` when recovery is off).
        public var retryPolicy: RetryPolicy
        /// Where the token goes: the `Authorization` header by default, or the `access_token` query parameter.
        public var tokenPlacement: Credential.Placement
        /// Responses larger than this are refused.
        public var maximumResponseBodySize: Int
        /// What the client logs.
        public var loggingBehaviors: LoggingBehaviors
        /// Above this share (0…1) of any usage counter, requests are slowed down; `nil` never slows down.
        public var slowDownAbove: Double?
        /// The longest slow-down delay (at 100 % usage).
        public var maximumSlowdown: Duration
        /// Whether the provider's error configuration is fetched and merged over the standard catalog.
        public var fetchesErrorConfiguration: Bool
        /// How long a fetched error configuration is used (an hour, as the vendor SDK does).
        public var errorConfigurationLifetime: TimeInterval
        /// The token that reads the error configuration (an app or client token), if not the user's.
        public var errorConfigurationToken: String?
        /// Server code only: computes `appsecret_proof` for a token with the app secret it holds. No client module
        /// stores a secret; this closure is where server code keeps it.
        public var appSecretProof: (@Sendable (String) -> String)?
        /// Server code only: the token the proof is computed for, when requests carry no override.
        public var proofToken: (@Sendable () -> String?)?
        /// Waits; replaceable in tests.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// The current time; replaceable in tests.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        public init(
            graphURL: URL = GraphAPI.defaultURL, version: String = GraphAPI.defaultVersion, appID: String? = nil,
            catalog: ErrorCatalog = .graph,
            automaticRecovery: Bool = true, retryPolicy: RetryPolicy = RetryPolicy(),
            tokenPlacement: Credential.Placement = .bearerHeader, maximumResponseBodySize: Int = 10 << 20,
            loggingBehaviors: LoggingBehaviors = [], slowDownAbove: Double? = nil,
            maximumSlowdown: Duration = .seconds(5),
            fetchesErrorConfiguration: Bool = false, errorConfigurationLifetime: TimeInterval = 3600,
            errorConfigurationToken: String? = nil, appSecretProof: (@Sendable (String) -> String)? = nil,
            proofToken: (@Sendable () -> String?)? = nil,
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.graphURL = graphURL
            self.version = version
            self.appID = appID
            self.catalog = catalog
            self.automaticRecovery = automaticRecovery
            self.retryPolicy = automaticRecovery ? retryPolicy : .never
            self.tokenPlacement = tokenPlacement
            self.maximumResponseBodySize = maximumResponseBodySize
            self.loggingBehaviors = loggingBehaviors
            self.slowDownAbove = slowDownAbove
            self.maximumSlowdown = maximumSlowdown
            self.fetchesErrorConfiguration = fetchesErrorConfiguration
            self.errorConfigurationLifetime = errorConfigurationLifetime
            self.errorConfigurationToken = errorConfigurationToken
            self.appSecretProof = appSecretProof
            self.proofToken = proofToken
            self.sleep = sleep
            self.now = now
        }
    }
}
