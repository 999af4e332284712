import Foundation
import HTTPTypes
import MendCore

/// The device logins waiting for their person — started on the provider's wire (`device/login`) or on an issuer's
/// (RFC 8628) — and what acts on them: starting one, a device's poll, the person's answer (the device page or the
/// control API), and the summaries the control API lists.
struct DeviceLoginBook: Sendable {
    /// The device logins, by device code.
    var logins: [String: DeviceAuthorization] = [:]

    /// Starts a device login for `app`: a long device code, a short user code (8 letters and digits that cannot
    /// be confused), the code's lifetime and the polling interval from the configuration.
    mutating func start(
        appID: String, scopes: [String], isRFC8628: Bool, context: inout EmulatorContext
    ) -> DeviceAuthorization {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ23456789")
        var userCode = ""
        repeat {
            userCode = String((0..<8).map { _ in alphabet[Int(context.random.next() % UInt64(alphabet.count))] })
        } while logins.values.contains { $0.userCode == userCode }
        let authorization = DeviceAuthorization(
            deviceCode: context.random.alphanumeric(32), userCode: userCode, appID: appID, scopes: scopes,
            expiresAt: context.now.addingTimeInterval(TimeInterval(context.configuration.deviceCodeLifetime)),
            interval: context.configuration.deviceLoginInterval, isRFC8628: isRFC8628)
        logins[authorization.deviceCode] = authorization
        return authorization
    }

    /// One poll of a device login by `appID`: who approved and what they granted (the caller issues the tokens), else
    /// why not. A poll sooner than the interval
    /// after the last one is "slow down", and the interval grows by 5 seconds for this and every later poll (RFC
    /// 8628 §3.5); expiry is checked first.
    mutating func poll(
        deviceCode: String, appID: String, users: inout UserDirectory, context: inout EmulatorContext
    ) -> Result<(userID: String, granted: [String]), DevicePollRefusal> {
        guard var authorization = logins[deviceCode], authorization.appID == appID else {
            return .failure(.invalidCode)
        }
        defer { logins[deviceCode] = authorization }
        if context.now >= authorization.expiresAt { return .failure(.expiredToken) }
        let previous = authorization.lastPoll
        authorization.lastPoll = context.now
        if let previous, context.now.timeIntervalSince(previous) < TimeInterval(authorization.interval) {
            authorization.interval += 5
            return .failure(.slowDown)
        }
        if authorization.answer == .pending {
            // Auto-consent answers at the first poll, as the login dialog answers at once.
            let chosen: Set<String>?
            switch users.autoConsent {
            case .manual: chosen = nil
            case .grantAll: chosen = Set(authorization.scopes)
            case .grant(let scopes): chosen = Set(scopes)
            case .deny:
                chosen = nil
                authorization.answer = .declined
            }
            if let chosen {
                let (granted, denied) = users.recordConsent(
                    appID: appID, userID: users.defaultUserID, scopes: authorization.scopes, chosen: chosen,
                    rerequest: false, context: &context)
                authorization.answer = .approved(userID: users.defaultUserID, granted: granted, denied: denied)
            }
        }
        switch authorization.answer {
        case .pending: return .failure(.authorizationPending)
        case .declined: return .failure(.accessDenied)
        case .used: return .failure(.invalidCode)
        case .approved(let userID, let granted, _):
            authorization.answer = .used
            return .success((userID, granted))
        }
    }

    /// Answers a pending device login by its user code, as the device page or the control API does: approve as
    /// `userID` with the `chosen` scopes, or decline (`chosen == nil`). Returns `false` for an unknown, expired or
    /// already answered code.
    mutating func answer(
        userCode: String, userID: String, chosen: Set<String>?, users: inout UserDirectory,
        context: inout EmulatorContext
    ) -> Bool {
        let normalized = Self.normalizeUserCode(userCode)
        guard
            let authorization = login(userCode: normalized),
            authorization.answer == .pending, context.now < authorization.expiresAt, users[userID] != nil
        else { return false }
        guard let chosen else {
            logins[authorization.deviceCode]?.answer = .declined
            return true
        }
        let (granted, denied) = users.recordConsent(
            appID: authorization.appID, userID: userID, scopes: authorization.scopes, chosen: chosen,
            rerequest: false, context: &context)
        logins[authorization.deviceCode]?.answer = .approved(userID: userID, granted: granted, denied: denied)
        return true
    }

    /// The device login with this (normalized) user code.
    func login(userCode: String) -> DeviceAuthorization? {
        logins.values.first { $0.userCode == userCode }
    }

    /// Every device login, for `GET /_emulator/device` (without device codes), oldest expiry first.
    func summaries(context: EmulatorContext) -> [DeviceLoginSummary] {
        logins.values.sorted { ($0.expiresAt, $0.userCode) < ($1.expiresAt, $1.userCode) }.map { login in
            let answer =
                switch login.answer {
                case .pending: context.now >= login.expiresAt ? "expired" : "pending"
                case .approved: "approved"
                case .declined: "declined"
                case .used: "used"
                }
            return DeviceLoginSummary(
                userCode: login.userCode, appID: login.appID, scopes: login.scopes, expiresAt: login.expiresAt,
                interval: login.interval, answer: answer, wire: login.isRFC8628 ? "rfc8628" : "provider")
        }
    }

    /// The app a device login was started for, as the device page shows it: a registered app, or an issuer's
    /// client (`google:<client id>`).
    static func app(_ appID: String, context: EmulatorContext) -> EmulatedApp? {
        if let app = context.apps[appID] { return app }
        let parts = appID.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = EmulatedIssuerKind(rawValue: parts[0]),
            let client = context.configuration.issuerClient(kind, parts[1])
        else { return nil }
        return EmulatedApp(id: appID, secret: "", name: client.name, redirectURIs: [], clientToken: "")
    }

    /// A user code as typed: letters upper-cased, spaces and dashes dropped.
    static func normalizeUserCode(_ text: String) -> String {
        String(text.uppercased().filter { $0.isLetter || $0.isNumber })
    }
}
