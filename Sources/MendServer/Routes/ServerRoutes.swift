import Foundation
import HTTPTypes
import Hummingbird
import MendCore
import MendHTTP
import NIOCore

/// Registers every endpoint of ``RouteTable`` on the router.
enum ServerRoutes {
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func register(on router: Router<ServerRequestContext>, backend: LoginBackend) {
        let limit = backend.configuration.listening.maximumBodySize
        let openAPI = ByteBuffer(string: OpenAPIDocument.make(configuration: backend.configuration).jsonText())
        let jwks = ByteBuffer(string: backend.jwks.jsonText())

        let schemas = RequestSchema.all(backend.configuration)
        let login = schemas["LoginRequest"]!
        let idTokenLogin = schemas["IDTokenLoginRequest"]!

        router.on(RouterPath(RouteTable.loginCode.path), method: .post) { request, context in
            let values = try await RequestBody.read(login, from: request, limit: limit)
            let body = LoginRequestBody(
                code: values["code"]!, codeVerifier: values["code_verifier"], redirectURI: values["redirect_uri"]!,
                provider: values["provider"])
            let session = try await backend.logins.login(
                body, client: try await provingClient(request, context, backend), logger: context.logger)
            return try WireResponse.json(session)
        }
        router.on(RouterPath(RouteTable.loginIDToken.path), method: .post) { request, context in
            let values = try await RequestBody.read(idTokenLogin, from: request, limit: limit)
            let body = IDTokenLoginBody(
                provider: values["provider"]!, idToken: values["id_token"]!, nonce: values["nonce"]!,
                authorizationCode: values["authorization_code"])
            let presented = presented(request, backend)
            let session = try await backend.logins.login(
                idToken: body, request: presented,
                client: try await provingClient(request, context, backend, presented: presented),
                logger: context.logger)
            return try WireResponse.json(session)
        }
        router.on(RouterPath(RouteTable.loginProviderToken.path), method: .post) { request, context in
            let values = try await RequestBody.read(.providerTokenLogin, from: request, limit: limit)
            let session = try await backend.logins.login(
                providerToken: values["provider_token"]!, client: try await provingClient(request, context, backend),
                logger: context.logger)
            return try WireResponse.json(session)
        }
        router.on(RouterPath(RouteTable.refresh.path), method: .post) { request, context in
            let values = try await RequestBody.read(.refresh, from: request, limit: limit)
            let session = try await backend.sessions.refresh(
                RefreshRequestBody(refreshToken: values["refresh_token"]!),
                client: try await provingClient(request, context, backend, opensSession: false),
                logger: context.logger)
            return try WireResponse.json(session)
        }
        router.on(RouterPath(RouteTable.logout.path), method: .post) { request, context in
            let values = try await RequestBody.read(.logout, from: request, limit: limit)
            let body = LogoutRequestBody(
                refreshToken: values["refresh_token"],
                revokeProviderPermissions: values.booleans["revoke_provider_permissions"],
                scope: values["scope"].flatMap(LogoutScope.init(rawValue:)) ?? .local)
            try await backend.accounts.logout(presented(request, backend), body: body, logger: context.logger)
            return Response(status: .noContent)
        }
        router.on(RouterPath(RouteTable.sessions.path), method: .get) { request, _ in
            WireResponse.json(try await backend.sessions.list(presented(request, backend)))
        }
        router.on(RouterPath(RouteTable.endSession.path), method: .delete) { request, context in
            try await backend.sessions.endSession(
                id: try context.parameters.require("id"), request: presented(request, backend), logger: context.logger)
            return Response(status: .noContent)
        }
        router.on(RouterPath(RouteTable.revoke.path), method: .post) { request, context in
            let values = try await RequestBody.read(.revocation, from: request, limit: limit)
            try await TokenRevocation(sessions: backend.sessions).revoke(
                RevocationRequestBody(token: values["token"]!, tokenTypeHint: values["token_type_hint"]),
                request: presented(request, backend), logger: context.logger)
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
        router.on(RouterPath(RouteTable.session.path), method: .get) { request, _ in
            WireResponse.json(bytes: try await backend.sessions.introspect(presented(request, backend)).jsonBytes)
        }
        router.on(RouterPath(RouteTable.me.path), method: .get) { request, context in
            try WireResponse.json(try await backend.accounts.me(presented(request, backend), logger: context.logger))
        }
        router.on(RouterPath(RouteTable.activity.path), method: .get) { request, _ in
            WireResponse.json(try await backend.accounts.activity(presented(request, backend)))
        }
        router.on(RouterPath(RouteTable.deleteMe.path), method: .delete) { request, context in
            try WireResponse.json(
                try await backend.accounts.deleteAccount(presented(request, backend), logger: context.logger))
        }
        router.on(RouterPath(RouteTable.jwks.path), method: .get) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
                body: ResponseBody(byteBuffer: jwks))
        }
        router.on(RouterPath(RouteTable.deauthorize.path), method: .post) { request, context in
            let signed = try await RequestBody.read(.signedRequest, from: request, limit: limit)["signed_request"]
            let ended = try await backend.callbacks.deauthorize(signedRequest: signed, logger: context.logger)
            return WireResponse.json(.object(["success": .bool(true), "sessions_ended": .int(ended)]))
        }
        router.on(RouterPath(RouteTable.dataDeletion.path), method: .post) { request, context in
            let signed = try await RequestBody.read(.signedRequest, from: request, limit: limit)["signed_request"]
            let record = try await backend.callbacks.requestDeletion(signedRequest: signed, logger: context.logger)
            let base = publicBaseURL(request, backend)
            return try WireResponse.json(
                DeletionAnswerBody(
                    url: "\(base)/v1/provider/deletion/\(record.confirmationCode)",
                    confirmationCode: record.confirmationCode))
        }
        router.on(RouterPath(RouteTable.deletionStatus.path), method: .get) { _, context in
            let record = try await backend.callbacks.deletionStatus(
                confirmationCode: try context.parameters.require("code"))
            return try WireResponse.json(
                DeletionStatusBody(
                    confirmationCode: record.confirmationCode, status: record.status, requestedAt: record.requestedAt,
                    completedAt: record.completedAt))
        }
        router.on(RouterPath(RouteTable.live.path), method: .get) { _, _ in
            WireResponse.json(.object(["status": .string("ok")]))
        }
        router.on(RouterPath(RouteTable.ready.path), method: .get) { _, _ in
            // Draining (SIGTERM to `serve`): not ready, whatever the database says, while the rest is still served.
            if backend.isDraining { throw ServerFailure.draining }
            guard await backend.isReady() else {
                throw ServerFailure.storageUnavailable("The database does not answer.")
            }
            return WireResponse.json(.object(["status": .string("ready")]))
        }
        router.on(RouterPath(RouteTable.metrics.path), method: .get) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: backend.metrics.render())))
        }
        router.on(RouterPath(RouteTable.openAPI.path), method: .get) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: openAPI))
        }
        registerAdmin(on: router, backend: backend)
        if backend.configuration.passkeys.isEnabled { registerPasskeys(on: router, backend: backend) }
    }

    /// The passkey routes (served when `MEND_PASSKEY_RP_ID` is set), the admin API's among them, and the association
    /// files that let other origins and apps use the RP ID's passkeys.
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func registerPasskeys(on router: Router<ServerRequestContext>, backend: LoginBackend) {
        let limit = backend.configuration.listening.maximumBodySize
        let passkeys = backend.passkeys
        router.on(RouterPath(RouteTable.passkeyRegistrationOptions.path), method: .post) { request, context in
            WireResponse.json(
                try await passkeys.registrationOptions(
                    presented(request, backend), client: sessionClient(request, context, backend)))
        }
        router.on(RouterPath(RouteTable.passkeyRegistration.path), method: .post) { request, context in
            let values = try await RequestBody.read(.passkeyRegistration, from: request, limit: limit)
            let passkey = try await passkeys.register(
                presented(request, backend), credential: values.objects["credential"]!, name: values["name"],
                client: sessionClient(request, context, backend), logger: context.logger)
            return WireResponse.json(passkey.json, status: .created)
        }
        router.on(RouterPath(RouteTable.passkeyLoginOptions.path), method: .post) { request, context in
            WireResponse.json(try await passkeys.loginOptions(client: sessionClient(request, context, backend)))
        }
        router.on(RouterPath(RouteTable.passkeyLogin.path), method: .post) { request, context in
            let values = try await RequestBody.read(.passkeyLogin, from: request, limit: limit)
            let session = try await passkeys.login(
                credential: values.objects["credential"]!, client: try await provingClient(request, context, backend),
                logger: context.logger)
            return try WireResponse.json(session)
        }
        router.on(RouterPath(RouteTable.passkeyList.path), method: .get) { request, _ in
            WireResponse.json(try await passkeys.list(presented(request, backend)))
        }
        router.on(RouterPath(RouteTable.passkeyRename.path), method: .patch) { request, context in
            let values = try await RequestBody.read(.passkeyRename, from: request, limit: limit)
            return WireResponse.json(
                try await passkeys.rename(
                    presented(request, backend), id: try context.parameters.require("id"), name: values["name"]!,
                    client: sessionClient(request, context, backend), logger: context.logger
                ).json)
        }
        router.on(RouterPath(RouteTable.passkeyRemove.path), method: .delete) { request, context in
            try await passkeys.remove(
                presented(request, backend), id: try context.parameters.require("id"),
                client: sessionClient(request, context, backend), logger: context.logger)
            return Response(status: .noContent)
        }
        let documents = PasskeyAssociation(backend.configuration.passkeys)
        for (endpoint, document) in [
            (RouteTable.relatedOrigins, documents.relatedOrigins),
            (RouteTable.appleAppSiteAssociation, documents.appleAppSiteAssociation),
            (RouteTable.assetLinks, documents.assetLinks),
        ] {
            let body = ByteBuffer(string: document.jsonText())
            router.on(RouterPath(endpoint.path), method: .get) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                    body: ResponseBody(byteBuffer: body))
            }
        }
        guard backend.configuration.admin.isEnabled else { return }
        let admin = backend.administration
        router.on(RouterPath(RouteTable.adminPasskeys.path), method: .get) { request, context in
            _ = try await admin.authorize(request.headers, address: clientAddress(request, context, backend))
            let user = try await admin.existingUser(try context.parameters.require("id")).id
            return WireResponse.json(PasskeyBody.list(try await backend.store.passkeys.passkeys(userID: user)))
        }
        router.on(RouterPath(RouteTable.adminRemovePasskey.path), method: .delete) { request, context in
            let caller = try await admin.authorize(request.headers, address: clientAddress(request, context, backend))
            let user = try await admin.existingUser(try context.parameters.require("id")).id
            try await passkeys.remove(
                id: try context.parameters.require("passkey"), userID: user, actor: caller.adminID, client: nil,
                logger: context.logger)
            return WireResponse.json(.object(["removed": .bool(true)]))
        }
    }

    /// The admin API's routes: each authorizes its caller first (404 when the admin API is off, then the rate limit,
    /// then the token).
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func registerAdmin(on router: Router<ServerRequestContext>, backend: LoginBackend) {
        let limit = backend.configuration.listening.maximumBodySize
        let admin = backend.administration
        @Sendable func caller(_ request: Request, _ context: ServerRequestContext) async throws -> Administration.Caller
        {
            try await admin.authorize(request.headers, address: clientAddress(request, context, backend))
        }
        router.on(RouterPath(RouteTable.adminUsers.path), method: .get) { request, context in
            _ = try await caller(request, context)
            return WireResponse.json(
                try await admin.users(AdminQuery(request.uri.query, endpoint: RouteTable.adminUsers)))
        }
        router.on(RouterPath(RouteTable.adminUser.path), method: .get) { request, context in
            _ = try await caller(request, context)
            return WireResponse.json(try await admin.user(id: try context.parameters.require("id")))
        }
        router.on(RouterPath(RouteTable.adminLogoutUser.path), method: .post) { request, context in
            let caller = try await caller(request, context)
            let values = try await RequestBody.read(.adminEnd, from: request, limit: limit)
            return WireResponse.json(
                try await admin.logoutUser(
                    id: try context.parameters.require("id"), reason: values["reason"], caller: caller,
                    logger: context.logger))
        }
        router.on(RouterPath(RouteTable.adminEndSession.path), method: .post) { request, context in
            let caller = try await caller(request, context)
            let values = try await RequestBody.read(.adminEnd, from: request, limit: limit)
            return WireResponse.json(
                try await admin.endSession(
                    id: try context.parameters.require("id"), reason: values["reason"], caller: caller,
                    logger: context.logger))
        }
        router.on(RouterPath(RouteTable.adminDeleteUser.path), method: .delete) { request, context in
            let caller = try await caller(request, context)
            return try WireResponse.json(
                try await admin.deleteUser(
                    id: try context.parameters.require("id"), caller: caller, logger: context.logger))
        }
        router.on(RouterPath(RouteTable.adminAudit.path), method: .get) { request, context in
            _ = try await caller(request, context)
            return WireResponse.json(
                try await admin.audit(AdminQuery(request.uri.query, endpoint: RouteTable.adminAudit)))
        }
    }

    /// The client's address: behind `trustedProxyCount` proxies, the `X-Forwarded-For` entry that many places from
    /// the right (the entries further left are the client's own words); else, or with fewer entries, the peer.
    static func clientAddress(_ request: Request, _ context: ServerRequestContext, _ backend: LoginBackend) -> String {
        let proxies = backend.configuration.listening.trustedProxyCount
        if proxies > 0 {
            let entries = request.headers[values: Self.forwardedFor]
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            if entries.count >= proxies { return entries[entries.count - proxies] }
        }
        return context.peerAddress ?? "unknown"
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client of a login or refresh: its address and its `Mend-Client` header.
    static func sessionClient(
        _ request: Request, _ context: ServerRequestContext, _ backend: LoginBackend
    ) -> SessionClient {
        SessionClient(address: clientAddress(request, context, backend), header: request.headers[SessionClient.header])
    }

    /// `MEND_PUBLIC_URL`, else — behind trusted proxies — the scheme and host the nearest one forwarded
    /// (`X-Forwarded-Proto`, `X-Forwarded-Host`), else the request's own scheme and host.
    static func publicBaseURL(_ request: Request, _ backend: LoginBackend) -> String {
        if let url = backend.configuration.listening.publicURL?.absoluteString {
            return url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        var scheme = request.head.scheme ?? "http"
        var host = request.head.authority ?? "localhost"
        if backend.configuration.listening.trustedProxyCount > 0 {
            if let forwarded = lastEntry(request.headers[values: Self.forwardedProto]),
                forwarded == "https" || forwarded == "http"
            {
                scheme = forwarded
            }
            if let forwarded = lastEntry(request.headers[values: Self.forwardedHost]) { host = forwarded }
        }
        return "\(scheme)://\(host)"
    }

    /// The last comma-separated entry of a header's values: the one the nearest proxy wrote.
    private static func lastEntry(_ values: [String]) -> String? {
        values.flatMap { $0.split(separator: ",") }.last.map { $0.trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty ? nil : $0.lowercased() }
    }

    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!

    /// What a session check sees of `request`: its headers, method and public URL (the `htu` of its DPoP proof).
    static func presented(_ request: Request, _ backend: LoginBackend) -> PresentedRequest {
        PresentedRequest(
            headers: request.headers, method: request.method.rawValue, base: publicBaseURL(request, backend),
            path: request.uri.path)
    }

    /// The client of a login or refresh, with the key its DPoP proof proved (refused here when the proof is not
    /// valid, or when a login — `opensSession` — carries none under `MEND_DPOP=required`; a refresh without one is
    /// the session's to judge).
    static func provingClient(
        _ request: Request, _ context: ServerRequestContext, _ backend: LoginBackend,
        presented: PresentedRequest? = nil, opensSession: Bool = true
    ) async throws -> SessionClient {
        var client = sessionClient(request, context, backend)
        let sessions = backend.sessions
        client.proofKey = try await sessions.dpop.tokenRequestKey(
            presented ?? Self.presented(request, backend), now: Int64(sessions.clock.now().timeIntervalSince1970),
            opensSession: opensSession)
        return client
    }
}
