public import Foundation
import HTTPTypes
public import Logging
public import MendCore
public import MendHTTP

/// Login on a device that cannot receive a browser redirect — a TV, a terminal over SSH, a container: the device
/// shows a short code and a web address, the person enters the code there on a phone or a computer, and the device
/// polls until they answer.
///
/// Two wires, one API:
/// - a Facebook-compatible provider's device login (MendFacebook's `FacebookDialect`):
///   `POST {graph}/{version}/device/login` and `device/login_status`, authenticated with the app's client token
///   (`app_id|client_token`);
/// - RFC 8628 at an OAuth 2.0 provider with a ``LoginProvider/deviceAuthorizationEndpoint`` (Google): the device
///   authorization endpoint, then the token endpoint with the `device_code` grant.
///
/// ```swift
/// let device = DeviceLogin(provider: provider, clientToken: clientToken, transport: transport)
/// let authorization = try await device.start(scopes: ["public_profile", "email"])
/// show(authorization.userCode, authorization.verificationURI)
/// let result = try await device.waitForApproval(authorization)
/// if let session = result.session { try await credentials.signIn(session) }
/// ```
///
/// Polling keeps the provider's interval and obeys "slow down" by adding 5 seconds to it for every later poll (RFC
/// 8628 §3.5), never by doubling blindly. A transient failure of one poll (a 5xx, a dropped connection) is waited
/// out at the interval. The person declining, or the code expiring, ends the login with a cancelled result
/// (``LoginResult/Cancellation/declined``, ``LoginResult/Cancellation/expired``) — not an error. Cancelling the
/// waiting task throws `CancellationError`. The clock is injectable, so tests do not wait out real intervals.
///
/// DPoP (RFC 9449): when the provider speaks it (``LoginProvider/dpopSigningAlgorithms`` lists `ES256`, as discovery
/// reads it), ``waitForApproval(_:progress:)`` makes a key for the login (the Secure Enclave where there is one) and
/// every poll of the token endpoint proves it; a provider that answers `token_type: DPoP` has bound the tokens to it,
/// and the session keeps the key (``Session/proofKey``), so that its refreshes and requests carry proofs as a
/// browser login's do. A `use_dpop_nonce` challenge is answered by one more request. ``binding`` `= .bearer` opts
/// out.
public struct DeviceLogin: Sendable {
    /// What the device shows while it waits: the code and where to enter it. Its description leaves out the device
    /// code, which (with the client credential) can be turned into the person's token.
    public struct Authorization: Sendable, Hashable, CustomStringConvertible {
        /// The code the person enters (`user_code`).
        public var userCode: String
        /// Where the person enters it (`verification_uri`; Google's `verification_url`).
        public var verificationURI: URL
        /// The address with the code already in it (RFC 8628 `verification_uri_complete`), for a QR code, if the
        /// provider gives one.
        public var verificationURIComplete: URL?
        /// How long the code can be entered, from ``DeviceLogin/start(scopes:)``.
        public var expiresIn: Duration
        /// The interval between polls the provider asked for.
        package var interval: Duration
        /// The scopes requested.
        package var scopes: [String]
        /// The code the device polls with (`code`, RFC 8628 `device_code`).
        let deviceCode: String

        /// The code and the address, never the device code.
        public var description: String {
            "DeviceLogin.Authorization(userCode: \(userCode), verificationURI: \(verificationURI), "
                + "expiresIn: \(expiresIn), interval: \(interval))"
        }
    }

    /// What happens while ``waitForApproval(_:progress:)`` waits, for a countdown or a spinner.
    public enum Progress: Sendable, Hashable {
        /// About to wait `interval` before the next poll; `remaining` is the code's time left.
        case waiting(interval: Duration, remaining: Duration)
        /// The provider said "slow down": every later poll waits `interval` (5 seconds more than before).
        case slowedDown(interval: Duration)
        /// One poll failed for a transient reason (the error); polling goes on at the interval.
        case pollFailed(MendError)
    }

    /// The provider.
    package let provider: LoginProvider
    /// Validates the id_token of an OpenID Connect provider's answer (no nonce: device login sends none). When set,
    /// the answer must carry an id_token that passes; when `nil`, an id_token is not kept.
    package var idTokenValidator: IDTokenValidator?
    let clientToken: String?
    let clientSecret: String?
    let transport: any HTTPTransport
    let client: APIClient
    let clock: PipelineClock
    /// Where the login's DPoP key is made when the provider speaks DPoP: the platform's preferred key store by
    /// default, as ``OIDCSessionAuthority`` makes a browser login's; `nil`: bearer sessions.
    package var proofKeys: (any DPoPKeyFactory)? = DPoPKeyring.preferred
    /// The polls' nonce book and the login key's prover.
    package var dpopProofs = DPoPSessionProofs()

    /// Whether a login at a provider that speaks DPoP binds the session to a key (``SessionBinding/dpop``, the
    /// default) or opens a bearer session. A provider that does not speak DPoP (a Facebook-compatible one) gives
    /// bearer sessions either way.
    public var binding: SessionBinding {
        get { proofKeys == nil ? .bearer : .dpop }
        set { proofKeys = newValue == .bearer ? nil : DPoPKeyring.preferred }
    }

    /// Creates a device login.
    ///
    /// - Parameters:
    ///   - provider: The provider. A Facebook-compatible one needs `clientToken`; any other one needs a
    ///     ``LoginProvider/deviceAuthorizationEndpoint``.
    ///   - clientToken: The app's client token (Facebook: App Settings → Advanced), sent as `app_id|client_token`.
    ///     Not a secret: it ships inside apps.
    ///   - clientSecret: The client secret, for an OAuth 2.0 provider that gives one to device clients (Google's
    ///     "TVs and Limited Input devices" clients); `nil` for a public client.
    ///   - transport: The HTTP transport.
    ///   - idTokenValidator: Validates an OpenID Connect provider's id_token.
    ///   - clock: The clock polling waits on and the token's dates are read from (a test clock in tests).
    ///   - logger: Where request lines go (redacted).
    public init(
        provider: LoginProvider, clientToken: String? = nil, clientSecret: String? = nil,
        transport: any HTTPTransport, idTokenValidator: IDTokenValidator? = nil, clock: PipelineClock = .system,
        logger: Logger = Logger(label: "mend.login", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.provider = provider
        self.clientToken = clientToken
        self.clientSecret = clientSecret
        self.transport = transport
        self.idTokenValidator = idTokenValidator
        self.clock = clock
        self.client = APIClient(
            transport: transport,
            configuration: .init(
                errorDecoder: provider.dialect.errorDecoder(), catalog: .login, clock: clock, isThirdParty: true),
            steps: .standard(retryPolicy: .never),
            logger: logger)
    }

    /// Asks the provider for a code: show ``Authorization/userCode`` and ``Authorization/verificationURI`` to the
    /// person, then call ``waitForApproval(_:progress:)``.
    ///
    /// - Throws: `login/301` when the provider cannot do device login as configured (no client token, no device
    ///   authorization endpoint), or the provider's classified error.
    public func start(scopes: [String]) async throws -> Authorization {
        let wire = try self.wire()
        let body = try await client.send(
            form(
                url: wire.codeEndpoint,
                fields: [URLQueryItem(name: "scope", value: scopes.joined(separator: wire.scopeSeparator))],
                wire: wire)
        ).json()
        let uriText = body["verification_uri"]?.stringValue ?? body["verification_url"]?.stringValue
        guard let deviceCode = (body["code"] ?? body["device_code"])?.stringValue, !deviceCode.isEmpty,
            let userCode = body["user_code"]?.stringValue, !userCode.isEmpty,
            let uri = uriText.flatMap(URL.init(string:)), uri.scheme != nil,
            let expiresIn = body["expires_in"]?.intValue, expiresIn > 0
        else {
            throw MendError(
                code: .Transport.malformedResponse,
                developerMessage: "The device login answer lacks a code, a user_code, a verification URI or "
                    + "expires_in.", catalog: .login)
        }
        // RFC 8628 §3.2: 5 seconds when the provider names no interval.
        let interval = max(1, body["interval"]?.intValue ?? 5)
        return Authorization(
            userCode: userCode, verificationURI: uri,
            verificationURIComplete: body["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:)),
            expiresIn: .seconds(expiresIn), interval: .seconds(interval), scopes: scopes, deviceCode: deviceCode)
    }

    /// Polls until the person answers or the code expires: a session when they approve; a cancelled result when
    /// they decline (``LoginResult/Cancellation/declined``) or the code expires
    /// (``LoginResult/Cancellation/expired``). At a provider that speaks DPoP, every poll proves the login's key and
    /// a session the provider bound keeps it (see the type's documentation).
    ///
    /// - Parameters:
    ///   - authorization: What ``start(scopes:)`` returned.
    ///   - progress: Called before every wait, on "slow down" and on a transient failure of a poll.
    /// - Throws: `CancellationError` when the task is cancelled; the provider's classified error for anything but
    ///   the device-login answers and transient failures.
    public func waitForApproval(
        _ authorization: Authorization, progress: (@Sendable (Progress) -> Void)? = nil
    ) async throws -> LoginResult {
        // A provider that speaks DPoP binds the tokens to the key the polls prove (RFC 9449 §5): one key, and one
        // prover, for the whole login; each poll carries a proof of its own.
        let key = provider.speaksDPoP ? try proofKeys?.makeSessionKey() : nil
        let binding = try dpopProofs.binding(for: key)
        var interval = authorization.interval
        var waited = Duration.zero
        while true {
            let remaining = authorization.expiresIn - waited
            guard remaining > .zero else { return .cancelled(.expired) }
            progress?(.waiting(interval: interval, remaining: remaining))
            try await clock.sleep(min(interval, remaining))
            waited += min(interval, remaining)
            let answer: JSONValue
            do {
                var request = try pollRequest(authorization)
                request.dpop = binding
                answer = try await client.send(request).json()
            } catch let error as MendError {
                switch Self.classify(error, wire: try? wire()) {
                case .pending: continue
                case .slowDown:
                    interval += .seconds(5)
                    progress?(.slowedDown(interval: interval))
                    continue
                case .declined: return .cancelled(.declined)
                case .expired: return .cancelled(.expired)
                case nil:
                    guard error.category == .transient else { throw error }
                    progress?(.pollFailed(error))
                    continue
                }
            }
            return try await loginResult(answer, authorization: authorization, key: key)
        }
    }

    /// The four device-login answers, whichever wire they came on.
    enum PollAnswer: Equatable {
        case pending, slowDown, declined, expired
    }

    /// Which device-login answer `error` is, if any: what the provider's wire says (``DeviceLoginWire/pollAnswer``:
    /// Facebook's Graph subcodes), or RFC 8628's `error` values.
    static func classify(_ error: MendError, wire: DeviceLoginWire? = nil) -> PollAnswer? {
        switch wire?.pollAnswer?(error) {
        case .Login.deviceAuthorizationPending?: return .pending
        case .Login.deviceSlowDown?: return .slowDown
        case .Login.deviceLoginDeclined?: return .declined
        case .Login.deviceCodeExpired?: return .expired
        default: break
        }
        switch OAuthErrorBody.code(of: error) {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "access_denied": return .declined
        case "expired_token": return .expired
        default: return nil
        }
    }

    /// The login-space code for a device-login answer (`login/330`–`333`), as `mend explain` names them.
    static func code(for answer: PollAnswer) -> MendError.Code {
        switch answer {
        case .pending: .Login.deviceAuthorizationPending
        case .slowDown: .Login.deviceSlowDown
        case .declined: .Login.deviceLoginDeclined
        case .expired: .Login.deviceCodeExpired
        }
    }

    private func pollRequest(_ authorization: Authorization) throws -> APIRequest {
        let wire = try self.wire()
        return form(url: wire.pollEndpoint, fields: wire.pollFields(authorization.deviceCode), wire: wire)
    }

    /// The provider's device-login wire (its dialect's).
    private func wire() throws -> DeviceLoginWire {
        try provider.dialect.deviceLoginWire(for: provider, clientToken: clientToken, clientSecret: clientSecret)
    }

    /// The session of the token answer; bound to `key` (the key the polls proved) when the provider says so.
    private func loginResult(
        _ answer: JSONValue, authorization: Authorization, key: DPoPKey?
    ) async throws -> LoginResult {
        let tokens = try ProviderTokenAnswer(answer)
        var session = try await tokens.login(
            at: provider, transport: transport, issuedAt: clock.now(), asked: authorization.scopes,
            idTokenValidator: idTokenValidator, nonce: nil, what: "the device login's token answer")
        if tokens.isProofBound { session.proofKey = key }
        return LoginResult(
            session: session, granted: session.accessToken.permissions,
            declined: session.accessToken.declinedPermissions)
    }

    /// A form POST with the wire's client credential.
    private func form(url: URL, fields: [URLQueryItem], wire: DeviceLoginWire) -> APIRequest {
        let all = fields + wire.credential
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        headers[.accept] = "application/json"
        let body = FormEncoding.encode(all.map { ($0.name, $0.value ?? "") })
        return APIRequest(
            method: .post, url: url, headers: headers, body: Data(body.utf8),
            options: RequestOptions(allowsRetry: false, attachesCredential: false))
    }
}
