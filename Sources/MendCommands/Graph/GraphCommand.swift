import ArgumentParser
import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import MendCore
import MendGraphAPI
import MendHTTP
import MendHTTPAsyncHTTPClient
import Tracing

/// `mend graph`: call the Graph API (or the emulator) and see errors as Mend classifies them.
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract:
            "Call the Graph API: mend graph GET me --fields id,name · mend graph POST me/feed message=hi · mend graph batch file.json",
        discussion: """
            The token comes from --token, the MEND_ACCESS_TOKEN environment variable, or the session `mend login` \
            stored (refreshed as an app's would be; its base URL too); with none of them, nothing is sent and the \
            exit status is 4. On failure, the user message, the recovery and the reference id are printed and the \
            exit status is 1 (65 for bad input); --json prints the same fields as `mend explain --json`. With \
            --max-stale, a GET's answer is kept for the logged-in user, and a later transient failure (no network, a \
            timeout, a 5xx, a 429) is answered with it: standard error says "stale, 3 min old, because …".
            """
    )

    @Argument(help: "GET, POST or DELETE — or `batch` to send a file of requests.")
    var method: String

    @Argument(help: "The path (me, me/feed, an id), or the batch file.")
    var path: String

    @Argument(help: "Parameters as name=value.")
    var parameters: [String] = []

    @Option(name: .long, help: "Fields to return, comma-separated.")
    var fields: String?

    @Option(
        name: .long,
        help: "The Graph base URL (the emulator's, for instance; default: the logged-in session's, else Facebook's).")
    var baseURL: String?

    @Option(name: .customLong("api-version"), help: "The Graph API version (`--version` is the tool's own).")
    var version = GraphAPI.defaultVersion

    @Option(name: .long, help: "The access token (default: $MEND_ACCESS_TOKEN, else the session of `mend login`).")
    var token: String?

    @Option(name: .long, help: "Where `mend login` keeps the session (default: $XDG_STATE_HOME/mend).")
    var stateDirectory: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(name: .long, help: "Log requests, retries and errors to standard error.")
    var verbose = false

    @OptionGroup var language: LanguageOptions

    @Flag(
        name: .long,
        help: "Print the request's trace as a waterfall to standard error: attempts, waits, the token's renewal.")
    var trace = false

    @Flag(name: .long, help: "Split batches of more than 50 requests into several calls.")
    var split = false

    @OptionGroup var staleness: MaxStaleOption

    func validate() throws {
        guard ["GET", "POST", "DELETE", "BATCH"].contains(method.uppercased()) else {
            throw ValidationError("The method must be GET, POST, DELETE or batch, not '\(method)'.")
        }
        if let baseURL, URL(string: baseURL)?.host == nil {
            throw ValidationError("--base-url must be an absolute URL.")
        }
        for parameter in parameters where !parameter.contains("=") {
            throw ValidationError("Parameters look like name=value, not '\(parameter)'.")
        }
    }

    func run() async throws {
        guard trace else { return try await send() }
        let tracer = InMemoryTracer()
        defer { StandardError.write(TraceWaterfall.render(tracer.finishedSpans)) }
        try await withTracer(tracer) { try await send() }
    }

    func send() async throws {
        let resolved = try language.resolve()
        var logger = Logger(label: "mend.graph") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .critical
        let (found, profile) = try await LoginProfile.commandCredential(token: token, stateDirectory: stateDirectory)
        guard let credentials = found else { throw Failure.notLoggedIn(command: "graph", json: json) }
        let graphURL = baseURL ?? profile?.baseURL ?? "https://graph.facebook.com"
        let configuration = GraphClient.Configuration(graphURL: URL(string: graphURL)!, version: version)
        let lastKnownGood = staleness.lastKnownGood(stateDirectory: stateDirectory, hasSession: profile != nil)
        let client = GraphClient(
            transport: AsyncHTTPClientTransport(), configuration: configuration,
            steps: .graph(
                for: configuration, credentials: credentials,
                logging: verbose ? .all : [], lastKnownGood: lastKnownGood),
            logger: logger)
        do {
            if method.uppercased() == "BATCH" {
                let batch = try loadBatch()
                let results = try await client.send(batch, splitting: split)
                printBatch(results, locale: resolved)
            } else {
                let request = GraphRequest(
                    path: path, parameters: Self.pairs(parameters),
                    fields: fields.map {
                        $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                    } ?? [],
                    method: HTTPRequest.Method(method.uppercased())!,
                    maxStale: lastKnownGood.flatMap { _ in staleness.duration })
                let response = try await client.send(request)
                if let stale = response.staleness { StandardError.write(stale.description(locale: resolved)) }
                print((try? response.json().jsonText(pretty: true)) ?? String(decoding: response.body, as: UTF8.self))
            }
        } catch let error as MendError {
            printFailure(error, locale: resolved)
            throw ExitCode(1)
        }
    }

    static func pairs(_ parameters: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }

    private func loadBatch() throws -> GraphBatch {
        let data: Data
        do {
            data = try InputReading.read(argument: nil, file: path, limit: 1 << 20)
        } catch {
            StandardError.write("error: \(error)")
            throw ExitCode(ExitCodes.badInput)
        }
        guard case .success(let value) = JSONValue.parse(data),
            let list = value.arrayValue ?? value["batch"]?.arrayValue
        else {
            StandardError.write(
                "error: the batch file must be a JSON list of {\"method\", \"relative_url\", \"name\"?, \"body\"?}.")
            throw ExitCode(ExitCodes.badInput)
        }
        var items: [GraphBatch.Item] = []
        for (position, entry) in list.enumerated() {
            guard let relativeURL = entry["relative_url"]?.stringValue,
                let method = HTTPRequest.Method((entry["method"]?.stringValue ?? "GET").uppercased())
            else {
                StandardError.write("error: batch item \(position) needs a method and a relative_url.")
                throw ExitCode(ExitCodes.badInput)
            }
            let components = URLComponents(string: relativeURL)
            var parameters: [String: String] = [:]
            for item in components?.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
            if let body = entry["body"]?.stringValue {
                for item in URLComponents(string: "?" + body)?.queryItems ?? [] {
                    parameters[item.name] = item.value ?? ""
                }
            }
            let request = GraphRequest(path: components?.path ?? relativeURL, parameters: parameters, method: method)
            items.append(GraphBatch.Item(request, name: entry["name"]?.stringValue))
        }
        return GraphBatch(items)
    }

    private func printBatch(_ results: [GraphBatchResult], locale: Locale) {
        if json {
            let rendered: [JSONValue] = results.map { result in
                switch result {
                case .success(let status, _, let body): .object(["status": .int(status), "body": body])
                case .failure(let error):
                    .object(["status": .int(error.httpStatus ?? 0), "error": Self.errorJSON(error, locale: locale)])
                case .omitted: .null
                }
            }
            print(JSONValue.array(rendered).jsonText(pretty: true))
            return
        }
        for (position, result) in results.enumerated() {
            switch result {
            case .success(let status, _, let body): print("[\(position)] \(status) \(body.jsonText())")
            case .failure(let error):
                print(
                    "[\(position)] \(error.code) \(error.category) → \(error.recovery): \(error.userMessage(locale: locale)) (reference \(error.referenceID ?? "— (never reached the API)"))"
                )
            case .omitted: print("[\(position)] omitted")
            }
        }
    }

    private func printFailure(_ error: MendError, locale: Locale) {
        if json {
            print(ErrorReport.json(ErrorReport(error, locale: locale)))
        } else {
            StandardError.write(
                """
                \(error.userTitle(locale: locale)): \(error.userMessage(locale: locale))
                recovery: \(error.recovery)\(error.recoverySuggestion(locale: locale).map { " — \($0)" } ?? "")
                reference: \(error.referenceID ?? "— (never reached the API)")
                error: \(error.description)
                """)
        }
    }

    static func errorJSON(_ error: MendError, locale: Locale) -> JSONValue {
        let text = ErrorReport.json(ErrorReport(error, locale: locale))
        return (try? JSONValue.parse(Data(text.utf8)).get()) ?? .null
    }
}
