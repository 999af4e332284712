import Foundation

/// The emulated people: each user's profile, account state and grants per app, in the configuration's order, and
/// how they answer consent pages (auto-consent, and as whom).
///
/// Every concern reads it (a token's validity depends on its user's state and grants; the consent pages list the
/// users); the consent answers, the account changes and a removed app change it, each through one method here.
struct UserDirectory: Sendable {
    private(set) var records: [String: EmulatedUserState]
    /// The user ids in the configuration's order (the consent pages list the users so).
    let order: [String]
    var autoConsent: AutoConsent
    var autoConsentUserID: String?

    init(configuration: EmulatorConfiguration) {
        records = Dictionary(
            configuration.users.map { ($0.id, EmulatedUserState(profile: $0, state: $0.state)) },
            uniquingKeysWith: { first, _ in first })
        order = configuration.users.map(\.id)
        autoConsent = configuration.autoConsent
        autoConsentUserID = configuration.autoConsentUserID
        for user in configuration.users where user.state == .passwordChanged {
            records[user.id]?.passwordChangedGeneration = 0
            records[user.id]?.state = .active
        }
    }

    subscript(userID: String) -> EmulatedUserState? { records[userID] }

    /// The user the consent pages select and auto-consent answers as.
    var defaultUserID: String { autoConsentUserID ?? order[0] }

    /// The users' profiles, in the configuration's order (the consent pages' list).
    var profiles: [TestUser] { order.compactMap { records[$0]?.profile } }

    /// The user a consent page's form chose (`user_id`), or the default user for none or an unknown one.
    func chosenUser(_ userID: String?) -> String {
        userID.flatMap { records[$0] != nil ? $0 : nil } ?? defaultUserID
    }

    /// The permissions a user currently grants an app (revocations apply to existing tokens at once).
    func grantedScopes(userID: String, appID: String) -> [String] {
        (records[userID]?.grants[appID]?.granted ?? []).sorted()
    }

    /// Records a user's answer to a consent page (the login dialog's or device login's): the scopes `chosen` among
    /// those offered (a scope declined before is offered again only on `rerequest`), `public_profile` always, and
    /// what was granted before. Returns the requested scopes granted and those denied, in request order.
    mutating func recordConsent(
        appID: String, userID: String, scopes: [String], chosen: Set<String>, rerequest: Bool,
        context: inout EmulatorContext
    ) -> (granted: [String], denied: [String]) {
        var grant = records[userID]?.grants[appID] ?? Grant()
        let offered = scopes.filter { rerequest || !grant.declined.contains($0) }
        var granted = Set(offered.filter { chosen.contains($0) })
        granted.insert("public_profile")
        granted.formUnion(scopes.filter { grant.granted.contains($0) && !offered.contains($0) })
        let requestedGranted = scopes.filter { granted.contains($0) }
        let denied = scopes.filter { !granted.contains($0) }
        grant.granted.formUnion(requestedGranted)
        grant.declined.formUnion(denied)
        grant.declined.subtract(grant.granted)
        records[userID]?.grants[appID] = grant
        // A new login installs the app again: tokens from now on work, older ones stay invalid.
        _ = context.nextGeneration()
        return (requestedGranted, denied)
    }

    /// Grants `scopes` (and `public_profile`) as if the user had logged in (the control API's token issue).
    mutating func grant(_ scopes: [String], userID: String, appID: String) {
        var grant = records[userID]?.grants[appID] ?? Grant()
        grant.granted.formUnion(scopes + ["public_profile"])
        grant.declined.subtract(grant.granted)
        records[userID]?.grants[appID] = grant
    }

    /// The user revokes one permission of the app: it counts as declined from now on.
    mutating func revoke(_ permission: String, userID: String, appID: String) {
        var grant = records[userID]?.grants[appID] ?? Grant()
        if grant.granted.remove(permission) != nil { grant.declined.insert(permission) }
        records[userID]?.grants[appID] = grant
    }

    /// The user removes the app: every token issued so far fails with 458, and the grants are gone.
    mutating func removeApp(userID: String, appID: String, context: inout EmulatorContext) {
        let generation = context.nextGeneration()
        records[userID]?.appRemovedGeneration[appID] = generation
        records[userID]?.grants[appID] = nil
    }

    /// Changes what a user's account does to their tokens (``Emulator/setUserState(_:userID:)``).
    mutating func apply(
        _ change: UserStateChange, userID: String, context: inout EmulatorContext
    ) throws(ControlError) {
        guard records[userID] != nil else { throw .notFound("user \(userID)") }
        switch change {
        case .active:
            records[userID]?.state = .active
        case .passwordChanged:
            records[userID]?.state = .active
            let generation = context.nextGeneration()
            records[userID]?.passwordChangedGeneration = generation
        case .checkpointed:
            records[userID]?.state = .checkpointed
        case .unconfirmed:
            records[userID]?.state = .unconfirmed
        case .appRemoved(let appID):
            let app = appID ?? context.configuration.defaultApp.id
            guard context.apps[app] != nil else { throw .notFound("app \(app)") }
            removeApp(userID: userID, appID: app, context: &context)
        case .permissionRevoked(let permission, let appID):
            revoke(permission, userID: userID, appID: appID ?? context.configuration.defaultApp.id)
        }
    }
}
