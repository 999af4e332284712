import MendCore

/// The association files that let other origins and apps use the RP ID's passkeys, from the configuration. Served
/// by mend-server with `application/json` and no redirect; when the RP ID's origin is another host, serve the same
/// bytes there (docs/passkeys.md says how).
struct PasskeyAssociation: Sendable {
    /// `/.well-known/webauthn` (WebAuthn Level 3 §5.11, related origins): `{"origins": [...]}`.
    var relatedOrigins: JSONValue
    /// `/.well-known/apple-app-site-association`: the apps of `webcredentials`.
    var appleAppSiteAssociation: JSONValue
    /// `/.well-known/assetlinks.json` (Digital Asset Links): each Android app with `get_login_creds`.
    var assetLinks: JSONValue

    init(_ settings: PasskeyConfiguration) {
        relatedOrigins = .object(["origins": .array(settings.relatedOrigins.map(JSONValue.string))])
        appleAppSiteAssociation = .object([
            "webcredentials": .object(["apps": .array(settings.appleAppIDs.map(JSONValue.string))])
        ])
        assetLinks = .array(
            settings.androidApps.map { app in
                let parts = app.split(separator: ":", maxSplits: 1).map(String.init)
                return .object([
                    "relation": .array([
                        .string("delegate_permission/common.handle_all_urls"),
                        .string("delegate_permission/common.get_login_creds"),
                    ]),
                    "target": .object([
                        "namespace": .string("android_app"), "package_name": .string(parts[0]),
                        "sha256_cert_fingerprints": .array([.string(parts.count > 1 ? parts[1] : "")]),
                    ]),
                ])
            })
    }
}
