public import Foundation

extension Emulator {
    /// Adds a fault and returns it with its id; throws ``ControlError`` when it cannot be injected.
    @discardableResult
    public func injectFault(_ rule: FaultRule) throws(ControlError) -> FaultRule {
        if let problem = rule.problem { throw .invalid(problem) }
        return state.faults.add(rule)
    }

    /// The injected faults, with their hit counts.
    public func faults() -> [FaultRule] { state.faults.rules }

    /// Removes one fault; returns whether it existed.
    @discardableResult
    public func removeFault(id: String) -> Bool { state.faults.remove(id: id) }

    /// Removes every fault.
    public func removeAllFaults() { state.faults.removeAll() }

    /// Moves the clock forward and returns the new emulator time.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) -> Date {
        state.context.clock.advance(by: seconds)
        return state.now
    }

    /// The emulator's current time.
    public func now() -> Date { state.now }

    /// Changes what a user's account does to their tokens.
    public func setUserState(_ change: UserStateChange, userID: String) throws(ControlError) {
        try state.setUserState(change, userID: userID)
    }

    /// Issues a user token directly, as if the user had logged in and granted `scopes` (for tests that skip the
    /// login dialog).
    public func issueToken(
        userID: String, appID: String? = nil, scopes: [String] = ["public_profile"], lifetime: Int? = nil
    ) throws(ControlError) -> String {
        let app = appID ?? configuration.defaultApp.id
        guard state.users[userID] != nil else { throw .notFound("user \(userID)") }
        guard state.context.apps[app] != nil else { throw .notFound("app \(app)") }
        let lifetime = lifetime ?? configuration.shortLivedTokenLifetime
        return state.issueToken(userID: userID, appID: app, scopes: scopes, lifetime: lifetime).value
    }

    /// Rotates the id_token signing key and returns the new key id (the previous key stays in the JWKS).
    public func rotateSigningKey() throws -> String {
        try state.rotateSigningKey()
    }

    /// The request log, oldest first.
    public func requestLog() -> [RequestLogEntry] { state.log.entries }

    /// Empties the request log.
    public func clearRequestLog() { state.log.clear() }

    /// Sets how the login dialog answers.
    public func setAutoConsent(_ consent: AutoConsent, userID: String? = nil) {
        state.users.autoConsent = consent
        state.users.autoConsentUserID = userID
    }

    /// Answers a pending device login as the person on the device page would: approve as `userID` (the default
    /// user when `nil`) granting `scopes` (all requested when `nil`), or decline (`approve: false`).
    ///
    /// - Throws: ``ControlError/notFound(_:)`` for an unknown user code, ``ControlError/invalid(_:)`` when the login
    ///   was already answered or expired.
    public func answerDeviceLogin(
        userCode: String, approve: Bool, userID: String? = nil, scopes: [String]? = nil
    ) throws(ControlError) {
        let code = DeviceLoginBook.normalizeUserCode(userCode)
        guard let pending = state.deviceLogins.login(userCode: code) else {
            throw .notFound("device login \(userCode)")
        }
        let chosen = approve ? Set(scopes ?? pending.scopes) : nil
        guard state.answerDeviceLogin(userCode: code, userID: userID ?? state.users.defaultUserID, chosen: chosen)
        else {
            throw .invalid("device login \(userCode) is not pending (answered or expired), or the user is unknown")
        }
    }

    /// The device logins the emulator knows, without their device codes: user code, app, scopes, expiry, interval
    /// (grown by every "slow down") and answer (`pending`, `approved`, `declined`, `used`, `expired`).
    public func deviceLogins() -> [DeviceLoginSummary] { state.deviceLogins.summaries(context: state.context) }

    /// Returns to the configuration's state: same seed, no tokens, no faults, an empty log, the clock at its start.
    public func reset() {
        state = EmulatorState(configuration: configuration, clock: clock)
    }
}

/// A change to a user's account, as the user's own actions cause it.
public enum UserStateChange: Sendable, Hashable {
    /// Back to normal (clears checkpoint and unconfirmed).
    case active
    /// The user changed their password: every token issued so far fails with 190/460.
    case passwordChanged
    /// The user is checkpointed: every token fails with 190/459 until the user is active again.
    case checkpointed
    /// The user is unconfirmed: every token fails with 190/464 until the user is active again.
    case unconfirmed
    /// The user removed the app (the default app when `nil`): its tokens fail with 190/458.
    case appRemoved(appID: String?)
    /// The user revoked one permission of the app (the default app when `nil`).
    case permissionRevoked(String, appID: String?)
}

/// Why a control request failed.
public enum ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request is invalid; the text says why.
    case invalid(String)
    /// A user, app or fault does not exist.
    case notFound(String)

    /// A readable rendering.
    public var description: String {
        switch self {
        case .invalid(let reason): "invalid: \(reason)"
        case .notFound(let what): "not found: \(what)"
        }
    }
}
