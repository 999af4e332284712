import Foundation
import MendCore
import MendHTTP

/// All of the emulator's mutable state, as one value composed of one part per concern: the shared context (the
/// configuration, the seeded random numbers, the clock, the event counter), the users, the Graph objects, the tokens,
/// the login dialogs, the device logins, the issuers, the REST objects, the faults and the request log. The
/// ``Emulator`` actor owns one, and its isolation is the one lock over all of them; ``reset`` builds a fresh one from
/// the configuration and the seed, so a reset emulator issues the same tokens again.
///
/// Each part holds its own state and the methods that act on it; a method that needs another part's state takes it
/// as a parameter (`inout` when it changes it). The routing here (`EmulatorState+Routing.swift`) lends each request
/// the parts it touches.
struct EmulatorState: Sendable {
    var context: EmulatorContext
    var users: UserDirectory
    var graph: GraphObjects
    var tokens = TokenBook()
    var dialogs = DialogBook()
    var deviceLogins = DeviceLoginBook()
    /// The emulated OpenID Connect issuers (Apple, Google).
    var issuers: IssuerState
    var rest = RESTStore()
    var faults = FaultBook()
    var log = RequestLog()

    init(configuration: EmulatorConfiguration, clock: PipelineClock) {
        context = EmulatorContext(configuration: configuration, clock: clock)
        users = UserDirectory(configuration: configuration)
        graph = GraphObjects(configuration: configuration, start: context.clock.start)
        issuers = IssuerState(seed: configuration.seed, dpop: configuration.issuerDPoP)
    }

    var now: Date { context.now }

    // MARK: What the control API changes across the parts

    /// Issues a user token directly, as if the user had logged in and granted `scopes`.
    mutating func issueToken(userID: String, appID: String, scopes: [String], lifetime: Int) -> TokenRecord {
        users.grant(scopes, userID: userID, appID: appID)
        return tokens.issueUserToken(
            appID: appID, userID: userID, lifetime: lifetime, longLived: false, context: &context)
    }

    /// Changes what a user's account does to their tokens.
    mutating func setUserState(_ change: UserStateChange, userID: String) throws(ControlError) {
        try users.apply(change, userID: userID, context: &context)
    }

    /// Rotates the provider's id_token signing key and returns the new key id.
    mutating func rotateSigningKey() throws -> String {
        try tokens.signingKeys.rotate(random: &context.random).id
    }

    /// Rotates an issuer's signing key.
    mutating func rotateIssuerKey(_ kind: EmulatedIssuerKind) throws {
        try issuers.keys.rotate(kind, random: &context.random)
    }

    /// A signed OIDC id_token of the provider for the user.
    mutating func idToken(appID: String, userID: String, nonce: String?, baseURL: String) throws -> String {
        try tokens.idToken(
            appID: appID, userID: userID, nonce: nonce, issuer: context.issuer(baseURL: baseURL), users: users,
            context: &context)
    }

    /// What a native SDK hands the app after the user signs in at an issuer.
    mutating func nativeSignIn(
        kind: EmulatedIssuerKind, clientID: String, userID: String, nonce: String?, serverClientID: String?,
        baseURL: String
    ) throws(ControlError) -> JSONValue {
        try issuers.nativeSignIn(
            kind: kind, clientID: clientID, userID: userID, nonce: nonce, serverClientID: serverClientID,
            baseURL: baseURL, users: users, context: &context)
    }

    /// Answers a pending device login by its user code; `false` when it is not pending or the user is unknown.
    mutating func answerDeviceLogin(userCode: String, userID: String, chosen: Set<String>?) -> Bool {
        deviceLogins.answer(userCode: userCode, userID: userID, chosen: chosen, users: &users, context: &context)
    }
}
