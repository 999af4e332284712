import ArgumentParser
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendServer

/// `mend-server admin …`: the admin API from the command line.
///
/// `new-token` works offline (it makes a token and prints the line to configure); every other subcommand calls a
/// running server's admin API over HTTP (`--url`, or `MEND_ADMIN_URL`) with the token in `MEND_ADMIN_TOKEN` (or a
/// file, `--token-file`): none reads the database directly, so each goes through the same checks, rate limit and
/// audit log as any other tool.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Call a running server's admin API (users, sessions, passkeys, account deletion, the audit log).",
        discussion: """
            The server must have MEND_ADMIN_TOKENS set; `mend-server admin new-token ID` makes a token and prints \
            the entry to add. The other subcommands send the token in MEND_ADMIN_TOKEN (or --token-file) to \
            --url (MEND_ADMIN_URL, http://127.0.0.1:8080 by default) and print lines, or the API's JSON with \
            --json. Exit codes: 0 success, 1 the API refused or failed (its error is printed), 64 a usage error, \
            78 no admin token to send.
            """,
        subcommands: [
            NewToken.self, Users.self, User.self, LogoutUser.self, EndSession.self, DeleteUser.self, Audit.self,
            Passkeys.self,
        ])
}

/// Where the admin API is and how to call it.
struct AdminConnection: ParsableArguments {
    @Option(name: .long, help: "The server's base URL (default: MEND_ADMIN_URL, else http://127.0.0.1:8080).")
    var url: String?

    @Option(name: .long, help: "A file holding the admin token (default: the MEND_ADMIN_TOKEN variable).")
    var tokenFile: String?

    @Flag(name: .long, help: "Print the API's JSON answer.")
    var json = false

    /// Sends one request to the admin API and returns its JSON answer; a refusal or failure is printed and exits 1.
    func send(
        _ method: HTTPRequest.Method, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil
    )
        async throws -> JSONValue
    {
        let base = url ?? ToolVariable.adminURL.value() ?? "http://127.0.0.1:8080"
        guard var components = URLComponents(string: base), components.scheme != nil, components.host != nil else {
            throw ValidationError("--url '\(base)' is not an absolute http(s) URL")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        let items = query.filter { $0.value != nil }
        components.queryItems = items.isEmpty ? nil : items
        // `+` in a query value is a space to the server (form encoding): send it as %2B.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let target = components.url else { throw ValidationError("cannot make a URL of '\(base)' and \(path)") }
        let token = try adminToken()
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if body != nil { headers[.contentType] = "application/json" }
        let client = APIClient(
            transport: AsyncHTTPClientTransport(),
            configuration: .init(errorDecoder: MendServiceErrorDecoder(), catalog: .server))
        do {
            let response = try await client.send(
                APIRequest(
                    method: method, url: target, headers: headers, body: body.map { Data($0.jsonText().utf8) },
                    options: RequestOptions(timeout: .seconds(60))))
            return try response.json()
        } catch let error as MendError {
            ServerCommandSupport.complain("admin: \(error.shortDescription): \(error.developerMessage)")
            throw ExitCode.failure
        }
    }

    private func adminToken() throws -> String {
        let token: String?
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                ServerCommandSupport.complain("admin: cannot read --token-file \(tokenFile)")
                throw ServerCommandSupport.configurationError
            }
            token = text
        } else {
            token = ToolVariable.adminToken.value()
        }
        guard let token = token?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            ServerCommandSupport.complain(
                "admin: no admin token: set MEND_ADMIN_TOKEN or pass --token-file (mend-server admin new-token ID)")
            throw ServerCommandSupport.configurationError
        }
        return token
    }

    /// Prints the answer: its JSON with `--json`, else the lines `lines` makes of it.
    func print(_ answer: JSONValue, _ lines: (JSONValue) -> [String]) {
        Swift.print(json ? answer.jsonText() : lines(answer).joined(separator: "\n"))
    }
}

extension AdminCommand {
    /// `mend-server admin new-token ID`.
    struct NewToken: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-token",
            abstract: "Make an admin token: print it, and the MEND_ADMIN_TOKENS entry that accepts it.",
            discussion: """
                Offline: nothing is sent or stored. Keep the token (the first line) where your tools read it; give \
                the server the entry (the second line), which holds only the token's SHA-256. Add it beside the \
                current entries to rotate, then remove the old one.
                """)

        @Argument(help: "The token's id, which the audit log names as the actor (letters, digits, . _ -).")
        var id: String

        func validate() throws {
            guard id.range(of: "^[A-Za-z0-9._-]{1,64}$", options: .regularExpression) != nil else {
                throw ValidationError("the id must be 1–64 letters, digits, '.', '_' or '-'")
            }
        }

        func run() {
            let made = AdminToken.generate(id: id)
            print("token: \(made.token)")
            print("MEND_ADMIN_TOKENS entry: \(made.configuration.environmentValue)")
        }
    }

    /// `mend-server admin users [QUERY]`.
    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users, newest first, or find them by id, provider subject, or part of an e-mail.")

        @Argument(help: "A user id, a provider's subject, or part of an e-mail address.")
        var query: String?
        @Option(name: .long, help: "How many (1–200; 50).") var limit: Int?
        @Option(name: .long, help: "How many to skip.") var offset: Int?
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            let answer = try await connection.send(
                .get, "/v1/admin/users",
                query: [
                    URLQueryItem(name: "query", value: query),
                    URLQueryItem(name: "limit", value: limit.map(String.init)),
                    URLQueryItem(name: "offset", value: offset.map(String.init)),
                ])
            connection.print(answer) { answer in
                let users = answer["users"]?.arrayValue ?? []
                return users.isEmpty ? ["no users"] : users.map(AdminText.user)
            }
        }
    }

    /// `mend-server admin user ID`.
    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a user: their profile, identities and active sessions.")

        @Argument(help: "The user's id.") var id: String
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            let answer = try await connection.send(.get, "/v1/admin/users/\(AdminText.segment(id))")
            connection.print(answer) { answer in
                var lines = [answer["user"].map(AdminText.user) ?? "?"]
                for identity in answer["identities"]?.arrayValue ?? [] {
                    lines.append(
                        "  identity \(AdminText.text(identity["provider"])) \(AdminText.text(identity["subject"]))"
                            + (identity["email"]?.stringValue.map { " <\($0)>" } ?? ""))
                }
                let sessions = answer["sessions"]?.arrayValue ?? []
                lines.append("  \(sessions.count) active session\(sessions.count == 1 ? "" : "s")")
                lines += sessions.map { "  " + AdminText.session($0) }
                return lines
            }
        }
    }

    /// `mend-server admin logout-user ID [--reason TEXT]`.
    struct LogoutUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout-user",
            abstract: "End every session of a user (their apps get session/17 with the reason).")

        @Argument(help: "The user's id.") var id: String
        @Option(name: .long, help: "Why, in words (shown to the apps' developers and kept in the audit log).")
        var reason: String?
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            let answer = try await connection.send(
                .post, "/v1/admin/users/\(AdminText.segment(id))/logout", body: AdminText.reasonBody(reason))
            connection.print(answer) { ["sessions ended: \(AdminText.text($0["sessions_ended"]))"] }
        }
    }

    /// `mend-server admin end-session ID [--reason TEXT]`.
    struct EndSession: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end-session", abstract: "End one session (its app gets session/17 with the reason).")

        @Argument(help: "The session's id.") var id: String
        @Option(name: .long, help: "Why, in words (shown to the app's developers and kept in the audit log).")
        var reason: String?
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            let answer = try await connection.send(
                .post, "/v1/admin/sessions/\(AdminText.segment(id))/end", body: AdminText.reasonBody(reason))
            connection.print(answer) { answer in
                [answer["ended"]?.boolValue == true ? "session ended" : "the session had already ended"]
            }
        }
    }

    /// `mend-server admin delete-user ID --yes`.
    struct DeleteUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-user",
            abstract: "Delete a user's account as DELETE /v1/me does: revoke at each provider, end every session.")

        @Argument(help: "The user's id.") var id: String
        @Flag(name: .long, help: "Confirm: the account and its data are deleted for good.") var yes = false
        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard yes else { throw ValidationError("deleting an account cannot be undone: add --yes to confirm") }
        }

        func run() async throws {
            let answer = try await connection.send(.delete, "/v1/admin/users/\(AdminText.segment(id))")
            connection.print(answer) { answer in
                let revoked = answer["revoked_at"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let notRevoked = answer["not_revoked"]?.arrayValue?.compactMap(\.stringValue) ?? []
                return [
                    "deleted; sessions ended: \(AdminText.text(answer["sessions_ended"]))",
                    "revoked at: \(revoked.isEmpty ? "none" : revoked.joined(separator: ", "))",
                ] + (notRevoked.isEmpty ? [] : ["not revoked (no token held): \(notRevoked.joined(separator: ", "))"])
            }
        }
    }

    /// `mend-server admin audit`.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read the audit log, newest first (--before pages back).")

        @Option(name: .long, help: "Only this user's events.") var user: String?
        @Option(name: .long, help: "Only events of this code (login, refresh, logout, admin_action, …).")
        var event: String?
        @Option(name: .long, help: "Only events older than this event id.") var before: Int64?
        @Option(name: .long, help: "How many (1–200; 50).") var limit: Int?
        @OptionGroup var connection: AdminConnection

        func run() async throws {
            let answer = try await connection.send(
                .get, "/v1/admin/audit",
                query: [
                    URLQueryItem(name: "user_id", value: user), URLQueryItem(name: "event", value: event),
                    URLQueryItem(name: "before", value: before.map(String.init)),
                    URLQueryItem(name: "limit", value: limit.map(String.init)),
                ])
            connection.print(answer) { answer in
                let events = answer["events"]?.arrayValue ?? []
                var lines = events.isEmpty ? ["no events"] : events.map(AdminText.event)
                if let next = answer["next_before"]?.intValue { lines.append("more: --before \(next)") }
                return lines
            }
        }
    }
}

extension AdminCommand {
    /// `mend-server admin passkeys list|remove`.
    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A user's passkeys: list them, or remove one (not their last way to sign in).",
            subcommands: [List.self, Remove.self])

        /// `mend-server admin passkeys list USER`.
        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a user's passkeys, oldest first.")

            @Argument(help: "The user's id.") var user: String
            @OptionGroup var connection: AdminConnection

            func run() async throws {
                let answer = try await connection.send(.get, "/v1/admin/users/\(AdminText.segment(user))/passkeys")
                connection.print(answer) { answer in
                    let passkeys = answer["passkeys"]?.arrayValue ?? []
                    return passkeys.isEmpty ? ["no passkeys"] : passkeys.map(AdminText.passkey)
                }
            }
        }

        /// `mend-server admin passkeys remove USER PASSKEY`.
        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove a user's passkey (refused when it is their last way to sign in).")

            @Argument(help: "The user's id.") var user: String
            @Argument(help: "The passkey's id (pk_…, from `list`).") var passkey: String
            @OptionGroup var connection: AdminConnection

            func run() async throws {
                let answer = try await connection.send(
                    .delete,
                    "/v1/admin/users/\(AdminText.segment(user))/passkeys/\(AdminText.segment(passkey))")
                connection.print(answer) { _ in ["passkey removed"] }
            }
        }
    }
}

/// The admin subcommands' lines.
enum AdminText {
    static func passkey(_ passkey: JSONValue) -> String {
        var line = "\(text(passkey["id"]))  \(text(passkey["name"]))  since \(time(passkey["created_at"]))"
        line += "  last used \(time(passkey["last_used_at"]))"
        if passkey["backed_up"]?.boolValue == true { line += "  synced" }
        if passkey["counter_regressed_at"]?.intValue != nil {
            line += "  counter went back at \(time(passkey["counter_regressed_at"]))"
        }
        return line
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .int(let number)?: String(number)
        case .bool(let flag)?: String(flag)
        default: "-"
        }
    }

    static func time(_ value: JSONValue?) -> String {
        guard let seconds = value?.intValue else { return "-" }
        return Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    static func user(_ user: JSONValue) -> String {
        "\(text(user["id"]))  \(text(user["name"]))  \(user["email"]?.stringValue ?? "-")  since \(time(user["created_at"]))"
    }

    static func session(_ session: JSONValue) -> String {
        [
            text(session["id"]), text(session["client"]), text(session["platform"]),
            "\(text(session["provider"]))/\(text(session["flow"]))", "from \(text(session["last_address"]))",
            "since \(time(session["created_at"]))",
        ].joined(separator: "  ")
    }

    static func event(_ event: JSONValue) -> String {
        var line = "#\(text(event["id"]))  \(time(event["at"]))  \(text(event["event"]))"
        for key in ["user_id", "session_id", "provider", "detail", "actor", "client", "address"] {
            if let value = event[key]?.stringValue { line += "  \(key)=\(value)" }
        }
        return line
    }

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? text
    }

    static func reasonBody(_ reason: String?) -> JSONValue {
        .object(reason.map { ["reason": .string($0)] } ?? [:])
    }
}
