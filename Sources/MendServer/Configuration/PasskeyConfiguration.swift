public import Foundation

/// Passkeys (WebAuthn): the relying party the server is, the origins its ceremonies may come from, and its policies
/// (``ServerConfiguration/passkeys``). Off — the passkey routes answer 404 and are not in `/openapi.json` — unless an
/// RP ID is configured.
public struct PasskeyConfiguration: Sendable, Hashable {
    /// What the server asks of the authenticator's user verification (PIN, biometrics).
    public enum UserVerification: String, Sendable, Hashable, CaseIterable {
        /// A ceremony without it is refused (`passkey/3`): the default.
        case required
        /// Asked for; a ceremony without it is accepted.
        case preferred
    }

    /// What a signature counter that did not increase means.
    public enum CounterPolicy: String, Sendable, Hashable, CaseIterable {
        /// Accepted, audited (`passkey_counter_regressed`) and shown in the passkey list: the default. Synced
        /// passkeys report 0, and a counter cannot tell a clone from a sync.
        case report
        /// Refused (`passkey/5`) for a device-bound passkey (not backup eligible); still only reported for a
        /// synced one.
        case refuseDeviceBound = "refuse-device-bound"
    }

    /// The RP ID: the domain passkeys are scoped to (`example.com`); `nil`: passkeys are off.
    public var relyingPartyID: String?
    /// The name authenticators show.
    public var relyingPartyName: String
    /// The origins a ceremony may come from, exactly as browsers and platforms name them: `https://` origins
    /// whose host is the RP ID or under it, `http://` on a loopback host for development, and Android apps'
    /// `android:apk-key-hash:<base64url SHA-256 of the signing certificate>`. Empty: `https://<RP ID>` alone.
    public var origins: [String]
    /// User verification.
    public var userVerification: UserVerification
    /// The counter policy.
    public var counterPolicy: CounterPolicy
    /// How recent a user's sign-in must be for them to add a passkey (5 minutes by default).
    public var recentSignInWindow: Duration
    /// How long a ceremony's challenge can be answered (5 minutes by default).
    public var challengeLifetime: Duration
    /// The other origins that may use this RP ID (WebAuthn related origins), served at `/.well-known/webauthn`.
    public var relatedOrigins: [String]
    /// The iOS and macOS apps that may use the RP ID's passkeys (`TEAMID.bundle.id`), served in
    /// `/.well-known/apple-app-site-association` (`webcredentials`).
    public var appleAppIDs: [String]
    /// The Android apps that may use them, as `package.name:SHA256-fingerprint` (the fingerprint in the colon-
    /// separated hex `keytool` prints), served in `/.well-known/assetlinks.json`.
    public var androidApps: [String]

    /// Passkey settings; without an RP ID passkeys are off.
    public init(
        relyingPartyID: String? = nil, relyingPartyName: String = "Mend", origins: [String] = [],
        userVerification: UserVerification = .required, counterPolicy: CounterPolicy = .report,
        recentSignInWindow: Duration = .seconds(300), challengeLifetime: Duration = .seconds(300),
        relatedOrigins: [String] = [], appleAppIDs: [String] = [], androidApps: [String] = []
    ) {
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.origins = origins
        self.userVerification = userVerification
        self.counterPolicy = counterPolicy
        self.recentSignInWindow = recentSignInWindow
        self.challengeLifetime = challengeLifetime
        self.relatedOrigins = relatedOrigins
        self.appleAppIDs = appleAppIDs
        self.androidApps = androidApps
    }

    /// Whether the passkey routes are served.
    public var isEnabled: Bool { relyingPartyID != nil }

    /// The origins ceremonies are accepted from: the configured ones, or `https://<RP ID>`.
    var acceptedOrigins: [String] {
        guard let relyingPartyID else { return [] }
        return origins.isEmpty ? ["https://\(relyingPartyID)"] : origins
    }

    /// Checks the RP ID and each origin: a refusal names the one at fault and why.
    func validate() throws(ConfigurationError) {
        guard let rpID = relyingPartyID else { return }
        let labels = rpID.split(separator: ".", omittingEmptySubsequences: false)
        let isLabel = { (label: Substring) in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
        guard rpID.count <= 253, labels.allSatisfy(isLabel) else {
            throw ConfigurationError(
                "MEND_PASSKEY_RP_ID '\(rpID)' is not a domain name (lowercase, no scheme, no port, no path)")
        }
        for origin in acceptedOrigins {
            if origin.hasPrefix("android:apk-key-hash:") {
                let hash = origin.dropFirst("android:apk-key-hash:".count)
                guard hash.count == 43, hash.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
                else {
                    throw ConfigurationError(
                        "MEND_PASSKEY_ORIGINS: '\(origin)' is not android:apk-key-hash: and the base64url SHA-256 "
                            + "of the app's signing certificate (43 characters)")
                }
                continue
            }
            guard let components = URLComponents(string: origin), let host = components.host,
                components.path.isEmpty, components.query == nil, components.fragment == nil,
                components.user == nil
            else {
                throw ConfigurationError(
                    "MEND_PASSKEY_ORIGINS: '\(origin)' is not an origin (scheme://host[:port], nothing after)")
            }
            switch components.scheme {
            case "https":
                guard host == rpID || host.hasSuffix("." + rpID) else {
                    throw ConfigurationError(
                        "MEND_PASSKEY_ORIGINS: '\(origin)' is not on the RP ID \(rpID) or under it; another site "
                            + "uses it through MEND_PASSKEY_RELATED_ORIGINS")
                }
            case "http":
                guard ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host) else {
                    throw ConfigurationError(
                        "MEND_PASSKEY_ORIGINS: '\(origin)' is http on a host that is not loopback: browsers allow "
                            + "passkeys over http only on localhost")
                }
            default:
                throw ConfigurationError("MEND_PASSKEY_ORIGINS: '\(origin)' is not https, loopback http or android")
            }
        }
        for app in androidApps {
            let parts = app.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[1].split(separator: ":").count == 32 else {
                throw ConfigurationError(
                    "MEND_PASSKEY_ANDROID_APPS: '\(app)' is not package.name:AA:BB:… (the SHA-256 fingerprint)")
            }
        }
    }
}

extension PasskeyConfiguration {
    /// Sets what the `MEND_PASSKEY_*` variables say, then checks the whole (``validate()``).
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func read(_ variables: VariableReader) throws(ConfigurationError) {
        if let rpID = variables.text("MEND_PASSKEY_RP_ID") { relyingPartyID = rpID }
        if let name = variables.text("MEND_PASSKEY_RP_NAME") { relyingPartyName = name }
        if let list = variables.list("MEND_PASSKEY_ORIGINS") { origins = list }
        if let verification = try variables.value(
            "MEND_PASSKEY_USER_VERIFICATION", as: PasskeyConfiguration.UserVerification.self,
            failure: { ConfigurationError("MEND_PASSKEY_USER_VERIFICATION '\($0)' must be required or preferred") })
        {
            userVerification = verification
        }
        if let policy = try variables.value(
            "MEND_PASSKEY_COUNTER_POLICY", as: PasskeyConfiguration.CounterPolicy.self,
            failure: { ConfigurationError("MEND_PASSKEY_COUNTER_POLICY '\($0)' must be report or refuse-device-bound") }
        ) {
            counterPolicy = policy
        }
        if let window = try variables.duration("MEND_PASSKEY_REAUTH_WINDOW") { recentSignInWindow = window }
        if let lifetime = try variables.duration("MEND_PASSKEY_CHALLENGE_TTL") {
            challengeLifetime = lifetime
        }
        if let list = variables.list("MEND_PASSKEY_RELATED_ORIGINS") { relatedOrigins = list }
        if let apps = variables.list("MEND_PASSKEY_APPLE_APPS") { appleAppIDs = apps }
        if let apps = variables.list("MEND_PASSKEY_ANDROID_APPS") { androidApps = apps }
        if !isEnabled, self != PasskeyConfiguration() {
            throw ConfigurationError("the MEND_PASSKEY_* variables need MEND_PASSKEY_RP_ID")
        }
        try validate()
    }
}
