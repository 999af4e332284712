public import Foundation
import HTTPTypes
import MendCore

/// The control API under `/_emulator/` (test mode only): JSON in, JSON out. docs/emulator.md lists every endpoint.
extension Emulator {
    func control(_ request: EmulatorRequest, path: [String]) async -> EmulatorResponse {
        do {
            return try route(request, path: path)
        } catch let error as ControlError {
            switch error {
            case .invalid(let reason): return Self.controlError(reason, status: .badRequest)
            case .notFound(let what): return Self.controlError("not found: \(what)", status: .notFound)
            }
        } catch {
            return Self.controlError("\(error)", status: .badRequest)
        }
    }

    private func route(_ request: EmulatorRequest, path: [String]) throws -> EmulatorResponse {
        switch (request.method, path) {
        case (.get, ["status"]), (.get, []):
            return Self.encode(status())
        case (.post, ["reset"]):
            reset()
            return Self.encode(status())
        case (.get, ["faults"]):
            return Self.encode(faults())
        case (.post, ["faults"]):
            let rule = try Self.decode(FaultRule.self, from: request.body)
            return Self.encode(try injectFault(rule), status: .created)
        case (.delete, ["faults"]):
            removeAllFaults()
            return Self.encode(["removed": true])
        case (.delete, let parts) where parts.count == 2 && parts[0] == "faults":
            guard removeFault(id: parts[1]) else { throw ControlError.notFound("fault \(parts[1])") }
            return Self.encode(["removed": true])
        case (.get, ["clock"]):
            return Self.encode(ClockBody(now: now()))
        case (.post, ["clock", "advance"]):
            let body = try Self.decode(AdvanceBody.self, from: request.body)
            return Self.encode(ClockBody(now: advanceClock(by: body.seconds)))
        case (.post, let parts) where parts.count == 3 && parts[0] == "users" && parts[2] == "state":
            let body = try Self.decode(UserStateBody.self, from: request.body)
            try setUserState(try body.change(), userID: parts[1])
            return Self.encode(["userID": parts[1], "state": body.state])
        case (.post, ["tokens"]):
            let body = try Self.decode(TokenBody.self, from: request.body)
            let token = try issueToken(
                userID: body.userID, appID: body.appID, scopes: body.scopes ?? ["public_profile"],
                lifetime: body.expiresIn)
            return Self.encode(
                TokenAnswer(accessToken: token, expiresIn: body.expiresIn ?? configuration.shortLivedTokenLifetime))
        case (.post, ["keys", "rotate"]):
            return Self.encode(["kid": try rotateSigningKey()])
        case (.get, ["requests"]):
            return Self.encode(requestLog())
        case (.delete, ["requests"]):
            clearRequestLog()
            return Self.encode(["cleared": true])
        case (.get, ["issuers"]):
            return Self.encode(issuerSummary(baseURL: request.baseURL))
        case (.get, ["issuers", "revocations"]):
            return Self.encode(revocations())
        case (.get, ["issuers", "dpop"]):
            return Self.encode(setIssuerDPoP())
        case (.post, ["issuers", "dpop"]):
            let body = try Self.decode(IssuerDPoPBody.self, from: request.body)
            return Self.encode(
                setIssuerDPoP(
                    enabled: body.enabled, requireNonce: body.requireNonce, rotateNonce: body.rotateNonce ?? false))
        case (.post, let parts)
        where parts.count == 3 && parts[0] == "issuers" && parts[2] == "native"
            && EmulatedIssuerKind(rawValue: parts[1]) != nil:
            let body = try Self.decode(NativeSignInBody.self, from: request.body)
            let kind = EmulatedIssuerKind(rawValue: parts[1])!
            let clientID =
                body.clientID ?? configuration.issuerClients.last { $0.kind == kind && $0.redirectURIs.isEmpty }?.id
                ?? configuration.issuerClients.last { $0.kind == kind }?.id ?? ""
            return .json(
                try state.nativeSignIn(
                    kind: kind, clientID: clientID, userID: body.userID ?? state.users.defaultUserID, nonce: body.nonce,
                    serverClientID: body.serverClientID, baseURL: request.baseURL))
        case (.post, let parts)
        where parts.count == 3 && parts[0] == "issuers" && parts[2] == "rotate-keys"
            && EmulatedIssuerKind(rawValue: parts[1]) != nil:
            try state.rotateIssuerKey(EmulatedIssuerKind(rawValue: parts[1])!)
            return Self.encode(["rotated": true])
        case (.post, ["limited-login"]):
            let body = try Self.decode(LimitedLoginBody.self, from: request.body)
            return Self.encode(
                [
                    "authentication_token": try limitedLoginToken(
                        appID: body.appID, userID: body.userID, nonce: body.nonce, baseURL: request.baseURL)
                ])
        case (.get, ["device"]):
            return Self.encode(deviceLogins())
        case (.post, let parts)
        where parts.count == 3 && parts[0] == "device" && ["approve", "decline"].contains(parts[2]):
            let body = try Self.decode(DeviceAnswerBody.self, from: request.body)
            try answerDeviceLogin(
                userCode: parts[1], approve: parts[2] == "approve", userID: body.userID, scopes: body.scopes)
            return Self.encode([
                "userCode": DeviceLoginBook.normalizeUserCode(parts[1]),
                "answer": parts[2] == "approve" ? "approved" : "declined",
            ])
        case (.post, ["consent"]):
            let body = try Self.decode(ConsentBody.self, from: request.body)
            setAutoConsent(try body.consent(), userID: body.userID)
            return Self.encode(["mode": body.mode])
        default:
            return Self.controlError(
                "no control endpoint \(request.method.rawValue) /_emulator/\(path.joined(separator: "/"))",
                status: .notFound)
        }
    }

    func status() -> StatusBody {
        StatusBody(
            graphVersion: configuration.graphVersion, seed: configuration.seed, now: state.now,
            testMode: configuration.testMode,
            apps: configuration.apps.map { AppSummary(id: $0.id, name: $0.name, redirectURIs: $0.redirectURIs) },
            users: state.users.order.compactMap { state.users[$0] }.map {
                UserSummary(id: $0.profile.id, name: $0.profile.name, email: $0.profile.email, state: $0.state.rawValue)
            },
            faults: state.faults.rules.count, requests: state.log.entries.count)
    }

    static func encode(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> EmulatorResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return EmulatorResponse(status: status, headers: [.contentType: "application/json"], body: data)
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(type, from: body.isEmpty ? Data("{}".utf8) : body)
        } catch {
            throw ControlError.invalid("the body is not a valid \(type) (JSON): \(error)")
        }
    }

    static func controlError(_ message: String, status: HTTPResponse.Status) -> EmulatorResponse {
        encode(["error": ["message": message, "type": "EmulatorControlException"]], status: status)
    }
}

/// `GET /_emulator/status`.
struct StatusBody: Codable {
    var graphVersion: String
    var seed: UInt64
    var now: Date
    var testMode: Bool
    var apps: [AppSummary]
    var users: [UserSummary]
    var faults: Int
    var requests: Int
}

struct AppSummary: Codable {
    var id: String
    var name: String
    var redirectURIs: [String]
}

struct UserSummary: Codable {
    var id: String
    var name: String
    var email: String?
    var state: String
}

struct ClockBody: Codable { var now: Date }
struct AdvanceBody: Codable { var seconds: TimeInterval }

struct UserStateBody: Codable {
    var state: String
    var appID: String?
    var permission: String?

    func change() throws -> UserStateChange {
        switch state {
        case "active": return .active
        case "passwordChanged": return .passwordChanged
        case "checkpointed": return .checkpointed
        case "unconfirmed": return .unconfirmed
        case "appRemoved": return .appRemoved(appID: appID)
        case "permissionRevoked":
            guard let permission else { throw ControlError.invalid("permissionRevoked needs \"permission\"") }
            return .permissionRevoked(permission, appID: appID)
        default:
            throw ControlError.invalid(
                "state must be active, passwordChanged, checkpointed, unconfirmed, appRemoved or permissionRevoked")
        }
    }
}

struct TokenBody: Codable {
    var userID: String
    var appID: String?
    var scopes: [String]?
    var expiresIn: Int?
}

struct TokenAnswer: Codable {
    var accessToken: String
    var expiresIn: Int
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
    }
}

/// `POST /_emulator/device/{user_code}/approve|decline`: who approves (the default user when absent) and which
/// scopes (all requested when absent).
struct DeviceAnswerBody: Codable {
    var userID: String?
    var scopes: [String]?
}

/// One device login, as `GET /_emulator/device` and ``Emulator/deviceLogins()`` show it (never its device code).
public struct DeviceLoginSummary: Codable, Sendable, Hashable {
    /// The code the person enters.
    public var userCode: String
    /// The app (or `google:<client id>` for the Google-like issuer).
    public var appID: String
    /// The scopes requested.
    public var scopes: [String]
    /// When the code expires (emulator time).
    public var expiresAt: Date
    /// The interval polls must keep, in seconds; every "slow down" adds 5.
    public var interval: Int
    /// `pending`, `approved`, `declined`, `used` (approved and turned into a token) or `expired`.
    public var answer: String
    /// `provider` (`device/login`) or `rfc8628` (an issuer's device authorization endpoint).
    public var wire: String
}

struct ConsentBody: Codable {
    var mode: String
    var scopes: [String]?
    var userID: String?

    func consent() throws -> AutoConsent {
        switch mode {
        case "manual": return .manual
        case "grantAll": return .grantAll
        case "deny": return .deny
        case "grant": return .grant(scopes ?? [])
        default: throw ControlError.invalid("mode must be manual, grantAll, grant or deny")
        }
    }
}
