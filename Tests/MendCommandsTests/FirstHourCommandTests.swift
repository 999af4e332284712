import Foundation
import MendClientTesting
import MendCore
import Testing

/// What a newcomer meets first, through the built `mend`: with nobody logged in, the commands that need a token send
/// nothing and say how to log in, with one exit status (4); Graph's 2500 "An active access token must be used" reads
/// as a login case.
@Suite("A newcomer's first commands", .enabled(if: MendBinary.url != nil))
struct FirstHourCommandTests {
    /// A state folder where nobody logged in, and no token in the environment.
    static func loggedOut() -> (folder: String, environment: [String: String?]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mend-nobody-\(UUID().uuidString)")
        return (folder.path, ["MEND_ACCESS_TOKEN": nil, "XDG_STATE_HOME": folder.path])
    }

    @Test("mend graph with no login and no token sends nothing, says how to log in, and exits 4")
    func graphWithoutLogin() async throws {
        let (folder, environment) = Self.loggedOut()
        try await LoopbackHTTPServer.withServer({ _ in .json(200, #"{"id":"1"}"#) }) { server in
            let base = "http://127.0.0.1:\(server.port)"
            // Failed before: the request went out without a token (status 0 here; against Graph, code 2500 read as
            // "Something went wrong … contact support").
            let run = try await MendBinary.run(
                ["graph", "GET", "me", "--base-url", base, "--state-directory", folder], environment: environment)
            #expect(run.status == 4, "\(run.stdout)\(run.stderr)")
            #expect(run.stderr.contains("Not logged in") && run.stderr.contains("Run `mend login`"), "\(run.stderr)")
            #expect(run.stderr.contains("--token") && run.stderr.contains("MEND_ACCESS_TOKEN"), "\(run.stderr)")
            let json = try await MendBinary.run(
                ["graph", "GET", "me", "--base-url", base, "--state-directory", folder, "--json"],
                environment: environment)
            #expect(json.status == 4)
            let report = try JSONValue.parse(Data(json.stdout.utf8)).get()
            #expect(report["domain"]?.stringValue == "login" && report["code"]?.intValue == 310, "\(json.stdout)")
            #expect(report["userTitle"]?.stringValue == "Not Logged In")
            #expect(server.requests.isEmpty, "sent \(server.requests.map(\.path))")
        }
    }

    @Test("mend graphql: nothing sent to the logged-in provider without a login; a public --endpoint is called")
    func graphQLWithoutLogin() async throws {
        let (folder, environment) = Self.loggedOut()
        let run = try await MendBinary.run(
            ["graphql", "{ me { name } }", "--state-directory", folder], environment: environment)
        // Failed before: "Missing expected argument '--endpoint <endpoint>'" (64).
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("Run `mend login`"), "\(run.stderr)")
        try await LoopbackHTTPServer.withServer({ _ in .json(200, #"{"data":{"me":{"name":"Ann"}}}"#) }) { server in
            let public_ = try await MendBinary.run(
                [
                    "graphql", "{ me { name } }", "--endpoint", "http://127.0.0.1:\(server.port)/graphql",
                    "--state-directory", folder,
                ],
                environment: environment)
            #expect(public_.status == 0, "\(public_.stderr)")
            #expect(public_.stdout.contains("Ann"))
            #expect(server.requests.count == 1)
            #expect(server.requests.first?.headers.contains { $0.name.lowercased() == "authorization" } == false)
        }
    }

    @Test("whoami, token print, token status and sessions share the not-logged-in status, 4")
    func oneNotLoggedInStatus() async throws {
        let (folder, environment) = Self.loggedOut()
        for arguments in [
            ["whoami"], ["token", "print"], ["token", "status"], ["token", "status", "--json"],
            ["sessions"],
        ] {
            let run = try await MendBinary.run(arguments + ["--state-directory", folder], environment: environment)
            // Failed before: 1, the status of every other failure.
            #expect(run.status == 4, "\(arguments): \(run.stdout)\(run.stderr)")
            #expect(
                (run.stdout + run.stderr).contains(#""loggedIn":false"#)
                    || (run.stdout + run.stderr).contains("Run `mend login"),
                "\(arguments): \(run.stdout)\(run.stderr)")
        }
    }

    @Test("Graph's 2500 'An active access token must be used' is a login case; 'Unknown path components' is not")
    func graph2500ByItsMessage() async throws {
        let noToken =
            #"{"error":{"message":"An active access token must be used to query information about the current user.","type":"OAuthException","code":2500,"fbtrace_id":"AbCdEf1"}}"#
        let run = try await MendBinary.run(["explain", "--json", noToken])
        let report = try JSONValue.parse(Data(run.stdout.utf8)).get()
        // Failed before: unknownGraphError, other, contactSupport ("Something went wrong").
        #expect(report["name"]?.stringValue == "accessTokenRequired", "\(run.stdout)")
        #expect(report["category"]?.stringValue == "recoverable")
        #expect(report["recovery"]?.stringValue == "reauthenticate")
        #expect(report["userTitle"]?.stringValue == "Not Logged In")
        let unknownPath =
            #"{"error":{"message":"Unknown path components: /mee","type":"OAuthException","code":2500,"fbtrace_id":"AbCdEf2"}}"#
        let other = try JSONValue.parse(Data(try await MendBinary.run(["explain", "--json", unknownPath]).stdout.utf8))
            .get()
        #expect(other["name"]?.stringValue == "requestNotUnderstood")
        #expect(other["recovery"]?.stringValue == "changeRequest")
    }

    @Test("a misspelt command names the nearest one, for mend and mend-server (its default subcommand included)")
    func misspeltCommands() async throws {
        // Failed before: "3 unexpected arguments: 'grpah', 'GET', 'me'" with no suggestion; `mend-server serv` was
        // taken as an argument of `serve`.
        let cases: [(tool: String, arguments: [String], expected: String)] = [
            ("mend", ["grpah", "GET", "me"], "Error: 'grpah' is not a mend command. Did you mean 'graph'?"),
            ("mend", ["token", "prnt"], "Error: 'prnt' is not a mend token command. Did you mean 'print'?"),
            ("mend", ["logn"], "Error: 'logn' is not a mend command. Did you mean 'login'?"),
            ("mend-server", ["serv"], "Error: 'serv' is not a mend-server command. Did you mean 'serve'?"),
            ("mend-server", ["chek-config"], "Did you mean 'check-config'?"),
        ]
        for (tool, arguments, expected) in cases {
            let run = try await MendBinary.run(arguments, executable: tool)
            #expect(run.status == 64, "\(tool) \(arguments): \(run.stderr)")
            #expect(run.stderr.contains(expected), "\(tool) \(arguments): \(run.stderr)")
            #expect(run.stderr.contains("See '\(tool)"), "\(run.stderr)")
        }
        // Far from every command: the commands are listed, and hidden ones are not offered.
        let far = try await MendBinary.run(["xyzzy"])
        #expect(far.status == 64 && far.stderr.contains("The commands: demo, explain"), "\(far.stderr)")
        // What is not a command is left to the command: `help`, an option, a subcommand's own arguments.
        #expect(try await MendBinary.run(["help", "graph"]).status == 0)
        #expect(try await MendBinary.run(["graph", "--help"]).status == 0)
        #expect(try await MendBinary.run(["errors", "list", "--domain", "graph"]).status == 0)
    }
}
