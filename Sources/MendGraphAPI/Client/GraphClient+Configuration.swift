public import Foundation
public import MendCore
public import MendHTTP

extension GraphClient {
    /// What a Graph client talks to and how it reads the answers: the URL, version and app, the catalog, where the
    /// token goes, and the provider's error configuration. How requests are retried, throttled, re-authenticated and
    /// logged is the client's steps' business (`.graph(for:credentials:…)`).
    public struct Configuration: Sendable {
        /// The Graph API's base URL: the provider's by default, the emulator's in tests.
        package var graphURL: URL
        /// The API version (`v25.0`).
        package var version: String
        /// The app id: the key of the rate-limit gate, and the node of the error configuration.
        package var appID: String?
        /// The catalog that classifies errors (`ErrorCatalog.graph` by default); the provider's error
        /// configuration, when fetched, is merged over it.
        package var catalog: ErrorCatalog
        /// Where the token goes: the `Authorization` header by default, or the `access_token` query parameter.
        package var tokenPlacement: Credential.Placement
        /// Responses larger than this are refused.
        package var maximumResponseBodySize: Int
        /// Whether the provider's error configuration is fetched and merged over the standard catalog.
        package var fetchesErrorConfiguration: Bool
        /// How long a fetched error configuration is used (an hour, as the vendor SDK does).
        package var errorConfigurationLifetime: TimeInterval
        /// The token that reads the error configuration (an app or client token), if not the user's.
        package var errorConfigurationToken: String?
        /// Server code only: computes `appsecret_proof` for a token with the app secret it holds. No client module
        /// stores a secret; this closure is where server code keeps it.
        package var appSecretProof: (@Sendable (String) -> String)?
        /// The clock every wait and deadline of the client's requests runs on, and the error configuration's age is
        /// read from; replaceable in tests.
        package var clock: PipelineClock
        /// Who watches the client's requests (tracing, metrics). The Graph API is a third party: it gets no trace
        /// context unless the observer is told to send it.
        package var observer: (any PipelineObserver)?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - graphURL: The API's base URL.
        ///   - version: The API version every path is prefixed with.
        ///   - appID: The app, for its error configuration and usage headers.
        ///   - catalog: The catalog that classifies errors.
        ///   - tokenPlacement: Where requests carry the token.
        ///   - maximumResponseBodySize: Responses larger than this are refused with `responseTooLarge`.
        ///   - fetchesErrorConfiguration: Whether the provider's error configuration is fetched and merged.
        ///   - errorConfigurationLifetime: How long a fetched error configuration is kept.
        ///   - errorConfigurationToken: The token the error configuration is fetched with.
        ///   - appSecretProof: Computes `appsecret_proof` for a token (server code only).
        ///   - clock: The clock every wait and deadline runs on.
        ///   - observer: Who watches the client's requests: by default the observer set with
        ///     `APIClient.bootstrapObserver(_:)` (none unless set).
        public init(
            graphURL: URL = GraphAPI.defaultURL, version: String = GraphAPI.defaultVersion, appID: String? = nil,
            catalog: ErrorCatalog = .graph,
            tokenPlacement: Credential.Placement = .bearerHeader, maximumResponseBodySize: Int = 10 << 20,
            fetchesErrorConfiguration: Bool = false, errorConfigurationLifetime: TimeInterval = 3600,
            errorConfigurationToken: String? = nil, appSecretProof: (@Sendable (String) -> String)? = nil,
            clock: PipelineClock = .system, observer: (any PipelineObserver)? = APIClient.bootstrappedObserver
        ) {
            self.graphURL = graphURL
            self.version = version
            self.appID = appID
            self.catalog = catalog
            self.tokenPlacement = tokenPlacement
            self.maximumResponseBodySize = maximumResponseBodySize
            self.fetchesErrorConfiguration = fetchesErrorConfiguration
            self.errorConfigurationLifetime = errorConfigurationLifetime
            self.errorConfigurationToken = errorConfigurationToken
            self.appSecretProof = appSecretProof
            self.clock = clock
            self.observer = observer
        }
    }
}
