import Foundation
import HTTPTypes
import Logging
import MendCore
import MendEmulator
import MendFacebook
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import Tracing

/// `mend demo`'s walk-through: the emulator and `mend-server` in-process on loopback, a real login, real calls, and
/// each fault class injected in turn — each row showing the classified error and what Mend did about it.
struct LiveDemo {
    /// One row of the summary.
    struct Row: Encodable, Sendable {
        var scenario: String
        var domain: String
        var code: Int
        var subcode: Int?
        var name: String
        var category: String
        var recovery: String
        var userMessage: String
        var referenceID: String?
        var outcome: String
        var passed: Bool
    }

    let locale: Locale
    let say: @Sendable (String) -> Void

    func run() async throws -> [Row] {
        var emulatorConfiguration = EmulatorConfiguration(seed: 7)
        emulatorConfiguration.users[0].seedPostCount = 60
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mend-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await DemoEmulator.withRunning(configuration: emulatorConfiguration) { emulator in
            say("provider emulator on \(emulator.baseURL.absoluteString)")
            let app = emulator.emulator.configuration.defaultApp
            var serverConfiguration = ServerConfiguration(
                appID: app.id, appSecret: Secret(app.secret), host: "127.0.0.1", port: 0, graphURL: emulator.baseURL,
                graphVersion: emulator.emulator.configuration.graphVersion,
                databaseURL: "sqlite://\(directory.appendingPathComponent("mend.sqlite").path)")
            serverConfiguration.sessions.allowedRedirectURIs = app.redirectURIs
            serverConfiguration.providers.facebook?.validityCheckInterval = .zero
            serverConfiguration.providers.maxAttempts = 1
            serverConfiguration.providers.timeout = .seconds(5)
            serverConfiguration.providers.returnsProviderToken = true
            // Passkeys for the walkthrough's software authenticator: the RP ID localhost, a loopback origin.
            serverConfiguration.passkeys = PasskeyConfiguration(
                relyingPartyID: "localhost", origins: [Walkthrough.passkeyOrigin])
            let backend = try await LoginBackend.open(
                configuration: serverConfiguration,
                logger: Logger(label: "mend.server", factory: { _ in SwiftLogNoOpLogHandler() }))
            return try await backend.withRunningServer { server in
                say("mend-server on \(server.baseURL.absoluteString) (SQLite in \(directory.path))")
                return try await Walkthrough(emulator: emulator, server: server, locale: locale, say: say).run()
            }
        }
    }
}

/// The steps, sharing the clients.
struct Walkthrough {
    let emulator: DemoEmulator
    let server: RunningMendServer
    let locale: Locale
    let say: @Sendable (String) -> Void
    let transport = AsyncHTTPClientTransport()

    /// The origin of the walkthrough's passkey ceremonies (a loopback origin, allowed for development).
    static let passkeyOrigin = "http://localhost"

    var provider: LoginProvider {
        .emulator(
            baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
            version: emulator.emulator.configuration.graphVersion)
    }

    /// A login manager that exchanges codes through the sessions' authority (the demo's backend).
    func loginManager(_ sessions: CredentialsManager) -> LoginManager {
        LoginManager(
            provider: provider, credentials: sessions,
            defaultScopes: ["public_profile", "email", "user_posts", "user_friends"])
    }

    static func presenter(_ decision: HeadlessConsentBrowser.Decision) -> LoopbackBrowserPresenter {
        LoopbackBrowserPresenter(
            opener: .custom { url in try await HeadlessConsentBrowser(decision: decision).open(url) },
            timeout: .seconds(30))
    }

    /// Runs one scenario under a span of its name, so that `--trace` shows each scenario as one trace, labelled.
    func scenario<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        try await withSpan(name, ofKind: .internal) { _ in try await body() }
    }

    func run() async throws -> [LiveDemo.Row] {
        let backend = BackendSessionClient(baseURL: server.baseURL, transport: transport)
        // The user's last good answers, for the network-lost scenario: purged by the manager at every sign-out.
        let answers = InMemoryResponseStore()
        let sessions = CredentialsManager(store: InMemoryTokenStore(), authority: backend, responseStore: answers)
        let login = loginManager(sessions)

        // 1. Login: loopback receiver, PKCE and state, consent answered headlessly (declining one permission),
        //    the code exchanged by mend-server.
        let providerToken = try await scenario("login through mend-server") {
            let result = try await login.logIn(presenter: Self.presenter(.decline(["user_friends"])))
            guard let session = result.session, let providerToken = session.providerAccessToken else {
                throw DemoFailure(description: "the login returned no session")
            }
            say(
                "logged in as \(session.user?.name ?? "?") — loopback redirect, PKCE S256, state checked, code exchanged "
                    + "by mend-server; declined: \(result.declinedPermissions.sorted().joined(separator: ", "))")
            return providerToken
        }
        // 1a. A passkey: added after the login (a recent sign-in), then signing in alone — a new session of the same
        //     user, which the demo does not keep (its session carries the provider's token for the Graph steps).
        try await scenario("passkey: added, then signed in with alone") {
            let authenticator = SoftwarePasskeyAuthenticator(origin: Self.passkeyOrigin)
            guard let credential = try await sessions.currentCredential(),
                let added = try await backend.addPasskey(named: "Demo passkey", with: authenticator, using: credential),
                let passkeySession = try await backend.logIn(withPasskey: authenticator).session
            else { throw DemoFailure(description: "the passkey was not added, or did not sign in") }
            say(
                "passkey \"\(added.name)\" added (software authenticator, RP ID localhost), then signed in with it alone "
                    + "as \(passkeySession.user?.name ?? "?"): a new session of the same user")
        }
        // 1b. A second provider: the Google-like OpenID Connect issuer, its session kept by the OIDC authority.
        try await scenario("login with an OpenID Connect issuer") { say(try await secondProviderLogin()) }
        // The Graph client takes the provider's token that the backend session carries; when the provider rejects
        // it, SessionCredentials logs in again (headlessly here, counted) and the request is replayed once.
        let relogins = ReloginCounter()
        let tokens = SessionCredentials(
            login: login, presenter: CountingPresenter(base: Self.presenter(.grantAll), counter: relogins),
            token: .provider)
        let graphConfiguration = GraphClient.Configuration(
            graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion,
            appID: emulator.emulator.configuration.defaultApp.id)
        let graph = GraphClient(
            transport: transport, configuration: graphConfiguration,
            steps: .graph(
                for: graphConfiguration, credentials: tokens,
                retryPolicy: RetryPolicy(
                    maximumAttempts: 3, backoff: Backoff(base: .milliseconds(200), cap: .seconds(2))),
                lastKnownGood: LastKnownGood(store: answers)
            ))
        let probeConfiguration = GraphClient.Configuration(
            graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion)
        let probe = GraphClient(
            transport: transport, configuration: probeConfiguration,
            steps: .graph(for: probeConfiguration, credentials: nil, retryPolicy: .never))

        // 2. Reads: a node, an edge across pages, a batch.
        try await scenario("reads: a node, pages, a batch") {
            let me = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"])).json()
            var posts = 0
            var pages = 0
            for try await page in graph.pages(
                GraphRequest(path: "me/feed", parameters: ["limit": "25"]), of: JSONValue.self)
            {
                posts += page.items.count
                pages += 1
            }
            let batch = try await graph.send(
                GraphBatch(requests: [
                    GraphRequest(path: "me", fields: ["id"]), GraphRequest(path: "me/permissions"),
                    GraphRequest(path: "999999999999999"),
                ]))
            say(
                "Graph: /me is \(me["name"]?.stringValue ?? "?"); /me/feed: \(posts) posts in \(pages) pages; a batch of 3 in "
                    + "one call: \(batch.filter { $0.error == nil }.count) succeeded, \(batch.filter { $0.error != nil }.count) "
                    + "failed alone (\(batch.compactMap(\.error).first?.shortDescription ?? "-"))")
        }

        var rows: [LiveDemo.Row] = []
        func probeError(_ request: GraphRequest) async throws -> MendError {
            var request = request
            request.tokenOverride = try await tokens.currentCredential()?.token ?? providerToken
            do {
                _ = try await probe.send(request)
                throw DemoFailure(description: "\(request.path) did not fail")
            } catch let error as MendError {
                return error
            }
        }
        func row(_ scenario: String, _ error: MendError, _ outcome: String, passed: Bool) {
            rows.append(
                LiveDemo.Row(
                    scenario: scenario, domain: error.domain.rawValue, code: error.code.rawValue,
                    subcode: error.subcode?.rawValue,
                    name: error.name, category: error.category.rawValue, recovery: error.recovery.description,
                    userMessage: error.userMessage(locale: locale), referenceID: error.referenceID, outcome: outcome,
                    passed: passed))
            say("\(passed ? "✓" : "✗") \(scenario): \(error.shortDescription) → \(outcome)")
        }
        let me1 = GraphRequest(path: "me", fields: ["id", "name"])

        // Throttling, with usage headers: the wait is the provider's.
        try await scenario("throttled (app usage 100 %)") {
            try await emulator.inject(
                FaultRule(
                    kind: .error, error: "graph/4", path: "/me",
                    headers: ["X-App-Usage": #"{"call_count":100,"total_cputime":31,"total_time":40}"#],
                    retryAfter: "2",
                    times: 2))
            let throttle = try await probeError(me1)
            let started = ContinuousClock.now
            let afterThrottle = try await graph.send(me1)
            let waited = ContinuousClock.now - started
            row(
                "throttled (app usage 100 %)", throttle,
                String(
                    format: "held the app's requests %.1f s (Retry-After), retried once → %d",
                    Double(waited.components.seconds)
                        + Double(waited.components.attoseconds) / 1e18, afterThrottle.status),
                passed: throttle.category == .transient && afterThrottle.attempts == 2 && waited >= .seconds(1))

        }
        // A transient 5xx: retried with backoff.
        try await scenario("transient 5xx") {
            try await emulator.inject(FaultRule.error("graph/2", path: "/me", times: 2))
            let transient = try await probeError(me1)
            let afterTransient = try await graph.send(me1)
            row(
                "transient 5xx", transient,
                "retried with jittered backoff → \(afterTransient.status) after \(afterTransient.attempts) attempts",
                passed: transient.category == .transient && afterTransient.attempts == 2)

        }
        // An HTML 503 from a proxy: an error, never a success.
        try await scenario("HTML 503 from a proxy") {
            try await emulator.inject(FaultRule(kind: .html, path: "/me", status: 503, times: 2))
            let html = try await probeError(me1)
            let afterHTML = try await graph.send(me1)
            row(
                "HTML 503 from a proxy", html, "not taken for a success; retried → \(afterHTML.status)",
                passed: html.code == .HTTP.serviceUnavailable && afterHTML.attempts == 2)

        }
        // The network lost: the last good /me stands in, marked stale — only for a transient failure, only the
        // user's own, never after a sign-out.
        try await scenario("network lost") {
            let remembered = GraphRequest(path: "me", fields: ["id", "name"], maxStale: .seconds(3600))
            _ = try await graph.send(remembered)
            try await emulator.inject(FaultRule(kind: .drop, path: "/me", times: 1))
            let lost = try await probeError(me1)
            // As many drops as the client's attempts: every try of the request fails.
            try await emulator.inject(FaultRule(kind: .drop, path: "/me", times: 3))
            let stale = try await graph.send(remembered)
            let name = (try? stale.json())?["name"]?.stringValue ?? "?"
            row(
                "network lost", lost,
                "answered with the last known /me (\(name)), \(stale.staleness.map { $0.description(locale: locale) } ?? "not stale")",
                passed: lost.category == .transient && stale.source == .store && stale.staleness != nil)
        }
        // An expired token: one recovery (log in again), one replay.
        try await scenario("expired token") {
            await emulator.advanceClock(by: 61 * 86_400)
            let expired = try await probeError(me1)
            let loginsBefore = relogins.value
            let afterExpiry = try await graph.send(me1)
            row(
                "expired token", expired,
                "logged in again \(relogins.value - loginsBefore)× (SessionCredentials), replayed once → \(afterExpiry.status)",
                passed: expired.matches(.Graph.accessTokenInvalid, .tokenExpired) && afterExpiry.attempts == 2
                    && relogins.value - loginsBefore == 1)

        }
        // A password change: background work (`onTokenError: .invalidate`) never opens a login page; the next
        // request the user makes logs in again, once.
        try await scenario("password changed") {
            try await emulator.setUserState(.passwordChanged)
            let changed = try await probeError(me1)
            var background = "?"
            let loginsBeforeChange = relogins.value
            do {
                _ = try await graph.send(GraphRequest(path: "me", onTokenError: .invalidate))
            } catch let error as MendError {
                background = error.name
            }
            let backgroundLogins = relogins.value - loginsBeforeChange
            let afterChange = try await graph.send(me1)
            row(
                "password changed", changed,
                "background call failed (\(background)), no login page; the user's next call logged in again "
                    + "\(relogins.value - loginsBeforeChange - backgroundLogins)× → \(afterChange.status)",
                passed: changed.matches(.Graph.accessTokenInvalid, .passwordChanged) && backgroundLogins == 0
                    && relogins.value - loginsBeforeChange == 1 && afterChange.status == 200)

        }
        let post = GraphRequest(path: "me/feed", parameters: ["message": "Hello from Mend"], method: .post)
        // A missing permission: re-requested with auth_type=rerequest, only because the user acted.
        try await scenario("missing permission") {
            let missing = try await probeError(post)
            _ = try await login.logIn(
                scopes: login.defaultScopes + missing.recovery.permissions, rerequest: true,
                presenter: Self.presenter(.grantAll))
            let posted = try await graph.send(post).json()
            row(
                "missing permission", missing,
                "asked again for \(missing.recovery.permissions.joined(separator: ", ")) (auth_type=rerequest) → posted \(posted["id"]?.stringValue ?? "?")",
                passed: missing.recovery.action == .requestPermissions && posted["id"] != nil)

        }
        // A duplicate post: other, never retried.
        try await scenario("duplicate post") {
            let duplicate = try await probeError(post)
            var duplicateAttempts = 0
            do { _ = try await graph.send(post) } catch let error as MendError { duplicateAttempts = error.attempts }
            row(
                "duplicate post", duplicate, "not retried (\(duplicateAttempts) attempt): the content must change",
                passed: duplicate.code == .Graph.duplicatePost && duplicateAttempts == 1)

        }
        // GraphQL: partial data with typed errors.
        try await scenario("GraphQL partial result") {
            let currentToken = try await tokens.currentCredential()?.token ?? providerToken
            let graphQL = GraphQLClient(
                endpoint: emulator.url("/graphql"), transport: transport,
                credentials: StaticCredential(token: currentToken))
            let partial = try await graphQL.send(GraphQLOperation("{ me { name friends { name email } } }"))
            if let first = partial.classifiedErrors.first {
                row(
                    "GraphQL partial result", first,
                    "returned the data (\(partial.rawData?["me"]?["name"]?.stringValue ?? "?")) with \(partial.errors.count) error(s) at "
                        + partial.errors.compactMap(\.pathText).joined(separator: ", "),
                    passed: partial.rawData?["me"]?["name"] != nil && !partial.errors.isEmpty)
            }

        }
        // REST: a revision conflict, resolved by reloading and re-applying.
        try await scenario("REST revision conflict") {
            let rest = RESTClient(
                baseURL: emulator.url("/v1/"), transport: transport,
                configuration: .init(errorDecoder: RESTErrorDecoder()),
                steps: .standard(
                    credentialProvider: StaticCredential(
                        Credential(
                            token: emulator.emulator.configuration.restAPIKey,
                            placement: .header(name: "Appacitive-Apikey")
                        )),
                    retryPolicy: .never))
            let created: JSONValue = try await rest.post(
                "objects/note", body: JSONValue.object(["title": .string("Draft")]))
            let note = created["object"] ?? created
            let id = note["__id"]?.stringValue ?? ""
            let revision = note["__revision"]?.stringValue ?? "1"
            let _: JSONValue = try await rest.send(
                .put, "objects/note/\(id)", body: JSONValue.object(["title": .string("Edited elsewhere")]))
            do {
                let _: JSONValue = try await rest.send(
                    .put, "objects/note/\(id)", query: ["revision": revision],
                    body: JSONValue.object(["title": .string("Mine")]))
            } catch let conflict as MendError {
                let reloaded: JSONValue = try await rest.get("objects/note/\(id)")
                let current = (reloaded["object"] ?? reloaded)["__revision"]?.stringValue ?? ""
                let saved: JSONValue = try await rest.send(
                    .put, "objects/note/\(id)", query: ["revision": current],
                    body: JSONValue.object(["title": .string("Mine")]))
                row(
                    "REST revision conflict", conflict,
                    "reloaded (revision \(current)) and re-applied → revision \((saved["object"] ?? saved)["__revision"]?.stringValue ?? "?")",
                    passed: conflict.code == .REST.updateConflict)
            }
        }
        return rows
    }
}

/// A presenter that counts the logins it shows (the Graph client's re-logins).
struct CountingPresenter: LoginPresenter {
    let base: any LoginPresenter
    let counter: ReloginCounter

    func begin() async throws -> any LoginPresentation {
        counter.increment()
        return try await base.begin()
    }
}

final class ReloginCounter: @unchecked Sendable {
    // Safe: guarded by the lock.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

struct DemoFailure: Error, CustomStringConvertible {
    var description: String
}

extension LiveDemo {
    /// The summary table for people: four columns that fit an 80-column terminal (what Mend did is in the lines
    /// above it), or, `wide`, every column whole (the user message, the reference id and what Mend did too).
    static func table(_ rows: [Row], wide: Bool = false) -> String {
        let header =
            wide
            ? ["scenario", "error", "category", "recovery", "user message", "reference", "what Mend did"]
            : ["scenario", "error", "category", "recovery"]
        let cells = rows.map { row in
            let identity = "\(row.domain)/\(row.code)\(row.subcode.map { "/\($0)" } ?? "")"
            let mark = row.passed ? "" : "✗ "
            return wide
                ? [
                    row.scenario, identity, row.category, row.recovery, row.userMessage, row.referenceID ?? "—",
                    mark + row.outcome,
                ]
                : [mark + row.scenario, identity, row.category, row.recovery]
        }
        let lines = TextLayout.table(header: header, rows: cells, width: wide ? nil : TextLayout.terminalWidth)
        let passed = rows.filter(\.passed).count
        var summary = "\(passed) of \(rows.count) failure classes handled as expected."
        if !wide { summary += " The user messages, reference ids and what Mend did: mend demo --wide." }
        let footer = TextLayout.wrap(summary, width: wide ? Int.max : TextLayout.terminalWidth)
        return (lines + [""] + footer).joined(separator: "\n")
    }
}
