import ArgumentParser
import Foundation
import MendCore
import MendHTTPAsyncHTTPClient
import MendJOSE
import MendLogin

/// `mend whoami`: the logged-in user, after a validity check.
struct WhoAmICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Show the logged-in user.",
        discussion: "Exit status 4 when nobody is logged in (or the session ended), 1 when the check failed.")

    @Option(name: .long, help: "Where the session is kept (default: $XDG_STATE_HOME/mend).")
    var stateDirectory: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Print JSON: {\"loggedIn\", \"user\": {\"id\", \"name\", \"email\"}, \"binding\", \"reason\"}.",
            discussion:
                "`binding` is {\"scheme\": \"DPoP\", \"keyThumbprint\", \"accessTokenJKT\"} for a session bound to "
                + "its key (the key's RFC 7638 thumbprint, and the stored access token's cnf.jkt: equal), or "
                + "{\"scheme\": \"Bearer\"}."))
    var json = false

    func run() async throws {
        guard
            let (credentials, _) = try await LoginProfile.credentials(
                directory: LoginProfile.directory(stateDirectory)),
            let session = try await credentials.currentSession()
        else {
            print(json ? Self.json(user: nil, reason: "not logged in") : "Not logged in. Run `mend login`.")
            throw ExitCode(ExitCodes.notLoggedIn)
        }
        do {
            guard try await credentials.checkValidity(force: true) else {
                let reason = await credentials.lastSignOut
                let locale = Locale(identifier: MendLocalization.preferredLanguage)
                let why =
                    reason?.error.map { "\($0.userMessage(locale: locale)) (\($0.name), \($0.code))" }
                    ?? "the session was ended elsewhere."
                print(json ? Self.json(user: nil, reason: why) : "Not logged in any more: \(why) Run `mend login`.")
                throw ExitCode(ExitCodes.notLoggedIn)
            }
        } catch let error as MendError {
            throw Failure.report(error)
        }
        let current = try await credentials.currentSession() ?? session
        let user = current.user ?? session.user
        if json {
            print(Self.json(user: user, reason: nil, binding: Self.binding(of: current)))
        } else {
            let bound = current.proofKey.map { " — DPoP-bound (key \($0.thumbprint))" } ?? ""
            print("\(user?.name ?? "?") (\(user?.id ?? "?"))\(user?.email.map { " <\($0)>" } ?? "")\(bound)")
        }
    }

    /// `{"scheme": "DPoP", "keyThumbprint", "accessTokenJKT"}` or `{"scheme": "Bearer"}`: no secret.
    static func binding(of session: Session) -> JSONValue {
        guard let key = session.proofKey else { return .object(["scheme": .string("Bearer")]) }
        return .object([
            "scheme": .string("DPoP"), "keyThumbprint": .string(key.thumbprint),
            "accessTokenJKT": confirmationKey(of: session.accessToken.tokenString).map(JSONValue.string) ?? .null,
        ])
    }

    /// The `cnf.jkt` claim of a JWT access token (read, not verified: the server verifies it), if it has one.
    static func confirmationKey(of token: String) -> String? {
        CompactJWS.unverifiedContents(of: token)?.claims["cnf"]?["jkt"]?.stringValue
    }

    /// `{"loggedIn", "user", "binding", "reason"}`; `user` is `null` when logged out, `reason` when logged in.
    static func json(user: Session.User?, reason: String?, binding: JSONValue = .null) -> String {
        var userObject = JSONValue.null
        if let user {
            userObject = .object([
                "id": .string(user.id), "name": user.name.map(JSONValue.string) ?? .null,
                "email": user.email.map(JSONValue.string) ?? .null,
            ])
        }
        return JSONValue.object([
            "loggedIn": .bool(reason == nil), "user": userObject, "binding": binding,
            "reason": reason.map(JSONValue.string) ?? .null,
        ]).jsonText()
    }
}

/// `mend token status|refresh|print`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Inspect, refresh or print the stored session's token.",
        subcommands: [Status.self, Refresh.self, Print.self], defaultSubcommand: Status.self)

    /// `mend token print`: the access token alone on standard output, for scripts (as `gh auth token`); refreshed
    /// first when it expires within a minute.
    struct Print: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "print",
            abstract: "Print the access token alone, for scripts (refreshed first when it is about to expire).",
            discussion: """
                Standard output gets the token and a newline, nothing else: `curl -H "Authorization: Bearer \
                $(mend token print)" …`. It is a secret: do not paste it or log it. Exit status 4 when nobody is \
                logged in, 1 when the session cannot be renewed. A session mend-server bound to this tool's key (DPoP, \
                the default: `mend whoami --json` shows its binding) accepts the token only with a proof of that \
                key, which curl cannot make: that is what keeps a copied token useless.
                """)

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        func run() async throws {
            guard
                let (credentials, _) = try await LoginProfile.credentials(
                    directory: LoginProfile.directory(stateDirectory)),
                try await credentials.currentSession() != nil
            else {
                StandardError.write("Not logged in. Run `mend login`.")
                throw ExitCode(ExitCodes.notLoggedIn)
            }
            do {
                print(try await credentials.validToken().tokenString)
            } catch let error as MendError {
                throw Failure.report(error)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the session (never the token).")

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Print JSON (never the token): {\"loggedIn\", \"issuer\", \"source\", \"user\", \"expiresAt\", "
                    + "\"expired\", \"permissions\", \"declinedPermissions\", \"refreshable\"}."))
        var json = false

        func run() async throws {
            guard
                let (credentials, profile) = try await LoginProfile.credentials(
                    directory: LoginProfile.directory(stateDirectory)),
                let session = try await credentials.currentSession()
            else {
                let loggedOut = JSONValue.object(["loggedIn": .bool(false)]).jsonText()
                print(json ? loggedOut : "Not logged in. Run `mend login`.")
                throw ExitCode(ExitCodes.notLoggedIn)
            }
            let token = session.accessToken
            let formatter = ISO8601DateFormatter()
            let source = profile.backend ?? profile.baseURL ?? profile.provider
            if json {
                let user = session.user.map { user in
                    JSONValue.object([
                        "id": .string(user.id), "name": user.name.map(JSONValue.string) ?? .null,
                        "email": user.email.map(JSONValue.string) ?? .null,
                    ])
                }
                print(
                    JSONValue.object([
                        "loggedIn": .bool(true), "issuer": .string(session.issuer.rawValue), "source": .string(source),
                        "user": user ?? .null,
                        "expiresAt": token.expirationDate.map { .string(formatter.string(from: $0)) } ?? .null,
                        "expired": .bool(token.isExpired()),
                        "permissions": .array(token.permissions.sorted().map(JSONValue.string)),
                        "declinedPermissions": .array(token.declinedPermissions.sorted().map(JSONValue.string)),
                        "refreshable": .bool(session.refreshToken != nil),
                    ]).jsonText())
                return
            }
            print("issuer:      \(session.issuer.rawValue) (\(source))")
            print("user:        \(session.user?.id ?? "?")")
            print("token:       \(token)")
            print(
                "expires:     \(token.expirationDate.map(formatter.string(from:)) ?? "unknown")\(token.isExpired() ? " (expired)" : "")"
            )
            print("permissions: \(token.permissions.sorted().joined(separator: ", "))")
            if !token.declinedPermissions.isEmpty {
                print("declined:    \(token.declinedPermissions.sorted().joined(separator: ", "))")
            }
            print("refreshable: \(session.refreshToken == nil ? "no (log in again when it expires)" : "yes")")
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Refresh the session now.")

        @Option(name: .long, help: "Where the session is kept.")
        var stateDirectory: String?

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Print JSON (never the token): {\"refreshed\", \"expiresAt\", \"refreshable\"}, or an error report."))
        var json = false

        func run() async throws {
            guard
                let (credentials, _) = try await LoginProfile.credentials(
                    directory: LoginProfile.directory(stateDirectory))
            else {
                let loggedOut = JSONValue.object(["loggedIn": .bool(false)]).jsonText()
                print(json ? loggedOut : "Not logged in. Run `mend login`.")
                throw ExitCode(ExitCodes.notLoggedIn)
            }
            do {
                let session = try await credentials.refresh()
                let expiry = session.accessToken.expirationDate.map { ISO8601DateFormatter().string(from: $0) }
                if json {
                    print(
                        JSONValue.object([
                            "refreshed": .bool(true), "expiresAt": expiry.map(JSONValue.string) ?? .null,
                            "refreshable": .bool(session.refreshToken != nil),
                        ]).jsonText())
                } else {
                    print("Refreshed; the access token expires \(expiry.map { "at \($0)" } ?? "at a time not given").")
                }
            } catch let error as MendError {
                throw Failure.report(error, json: json)
            }
        }
    }
}

/// `mend logout`: revoke, then clear; or, with a backend, sign out the other devices or every device.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Revoke the session, then forget it (or sign out other devices).")

    @Option(name: .long, help: "Where the session is kept.")
    var stateDirectory: String?

    @Flag(name: .long, help: "Only forget the session locally.")
    var noRevoke = false

    @Flag(name: .long, help: "Sign out every other session of the user at the backend; this one goes on.")
    var others = false

    @Flag(name: .long, help: "Sign out every session of the user at the backend, this one included.")
    var everywhere = false

    func validate() throws {
        guard [others, everywhere, noRevoke].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give one of --others, --everywhere and --no-revoke.")
        }
    }

    func run() async throws {
        guard
            let (credentials, profile) = try await LoginProfile.credentials(
                directory: LoginProfile.directory(stateDirectory))
        else {
            print("Not logged in.")
            return
        }
        if others || everywhere {
            guard let backend = profile.backendClient(transport: AsyncHTTPClientTransport()),
                let session = try await credentials.currentSession()
            else {
                print("--others and --everywhere need a session from a backend (mend login --backend …).")
                throw ExitCode(1)
            }
            do {
                try await backend.logout(session, scope: others ? .others : .global)
            } catch let error as MendError {
                throw Failure.report(error)
            }
            if others {
                print("Signed out the other sessions; this one goes on.")
                return
            }
            _ = try await credentials.logout(revoke: false)
            print("Signed out everywhere.")
            return
        }
        let outcome = try await credentials.logout(revoke: !noRevoke)
        if let error = outcome.revocationError {
            print(
                "Logged out locally; revocation failed: \(error.shortDescription) (reference \(error.referenceID ?? "— (never reached the API)"))."
            )
        } else {
            print(outcome.revoked ? "Logged out and revoked." : "Logged out.")
        }
    }
}
