import ArgumentParser
import Foundation
import Logging
import MendCore
import MendGraphQL
import MendHTTP
import MendHTTPAsyncHTTPClient

/// `mend graphql`: run an operation and see its data and errors (with paths), classified.
struct GraphQLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graphql",
        abstract: "Run a GraphQL operation: mend graphql '{ me { name } }' [--endpoint URL]",
        discussion: """
            Without --endpoint, the operation goes to the logged-in provider's GraphQL endpoint (its base URL's \
            /graphql) with the session's token; with nobody logged in and no token, nothing is sent. A public API \
            given with --endpoint is called with the token of --token or MEND_ACCESS_TOKEN, else with none.

            Exit status: 0 when the data came back without errors, 2 when GraphQL errors came back (with partial \
            data or none), 1 for an execution error (network, HTTP status, unreadable body), 4 when nobody is \
            logged in, 65 for bad input.

            With --max-stale, a query's response is kept for the logged-in user, and a later transient failure is \
            answered with it: standard error says "stale, 3 min old, because …".
            """
    )

    @Argument(help: "The operation's text. Omit it to read --file.")
    var operation: String?

    @Option(name: [.short, .long], help: "Read the operation from a file.")
    var file: String?

    @Option(name: .long, help: "Variables as a JSON object.")
    var variables: String?

    @Option(name: .long, help: "The operation to run, when the text holds several.")
    var operationName: String?

    @Option(name: .long, help: "The GraphQL endpoint (default: the logged-in provider's).")
    var endpoint: String?

    @Option(name: .long, help: "The access token (default: $MEND_ACCESS_TOKEN, else the session of `mend login`).")
    var token: String?

    @Option(name: .long, help: "Where `mend login` keeps the session (default: $XDG_STATE_HOME/mend).")
    var stateDirectory: String?

    @Flag(
        name: .long, help: "Print JSON: data, errors (each with the fields of `mend explain --json`) and nulled paths.")
    var json = false

    @OptionGroup var language: LanguageOptions

    @OptionGroup var staleness: MaxStaleOption

    func validate() throws {
        guard (operation == nil) != (file == nil) else {
            throw ValidationError("Give the operation as an argument or with --file (one of them).")
        }
        if let endpoint, URL(string: endpoint)?.host == nil {
            throw ValidationError("--endpoint must be an absolute URL.")
        }
    }

    func run() async throws {
        let resolved = try language.resolve()
        let text: String
        do {
            text =
                try operation
                ?? String(decoding: InputReading.read(argument: nil, file: file, limit: 1 << 20), as: UTF8.self)
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(ExitCodes.badInput)
        }
        var parsedVariables: [String: JSONValue] = [:]
        if let variables {
            guard case .success(let value) = JSONValue.parse(Data(variables.utf8)), let object = value.objectValue
            else {
                StandardError.write("error: --variables must be a JSON object.")
                throw ExitCode(ExitCodes.badInput)
            }
            parsedVariables = object
        }
        let (credentials, profile) = try await LoginProfile.commandCredential(
            token: token, stateDirectory: stateDirectory)
        let target: URL
        if let endpoint {
            target = URL(string: endpoint)!
        } else if credentials != nil, let base = profile?.baseURL.flatMap(URL.init(string:)) {
            target = base.appendingPathComponent("graphql")
        } else if credentials != nil {
            throw ValidationError("Give --endpoint: no logged-in provider's GraphQL endpoint is known.")
        } else {
            throw Failure.notLoggedIn(command: "graphql", json: json)
        }
        let lastKnownGood = staleness.lastKnownGood(stateDirectory: stateDirectory, hasSession: profile != nil)
        let client = GraphQLClient(
            endpoint: target, transport: AsyncHTTPClientTransport(), credentials: credentials,
            lastKnownGood: lastKnownGood)
        let response: GraphQLResponse<JSONValue>
        do {
            response = try await client.send(
                GraphQLOperation(
                    text, variables: parsedVariables, operationName: operationName,
                    maxStale: lastKnownGood.flatMap { _ in staleness.duration }))
            if let stale = response.staleness { StandardError.write(stale.description(locale: resolved)) }
        } catch let error as MendError {
            if json {
                print(ErrorReport.json(ErrorReport(error, locale: resolved)))
            } else {
                StandardError.write(
                    "\(error.userTitle(locale: resolved)): \(error.userMessage(locale: resolved))\nerror: \(error.description)"
                )
            }
            throw ExitCode(1)
        }
        if json {
            let errors = zip(response.errors, response.classifiedErrors).map { graphQLError, classified in
                ErrorReport(classified, locale: resolved, path: graphQLError.pathText)
            }
            print(
                ErrorReport.json(
                    GraphQLReport(data: response.rawData, errors: errors, nulledPaths: response.nulledPaths)))
        } else {
            print("data: " + (response.rawData.map { $0.jsonText(pretty: true) } ?? "(none)"))
            for (graphQLError, classified) in zip(response.errors, response.classifiedErrors) {
                print(
                    "error at \(graphQLError.pathText ?? "(no path)"): \(graphQLError.message) — \(classified.code) "
                        + "\(classified.category) → \(classified.recovery)")
            }
            if !response.nulledPaths.isEmpty { print("nulled: " + response.nulledPaths.joined(separator: ", ")) }
        }
        if response.hasErrors { throw ExitCode(2) }
    }
}

/// `mend graphql --json`'s shape.
struct GraphQLReport: Encodable {
    var data: JSONValue?
    var errors: [ErrorReport]
    var nulledPaths: [String]
}
