import ArgumentParser
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MendCore
import MendEmulator
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendRecording
import MendServing
import NIOCore

/// `mend proxy --record FILE --upstream URL`: a loopback HTTP proxy that records what passes, for any app in any
/// language.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Record what passes between an app and a service, redacted, as HAR (and replay it).",
        discussion: """
            Listens on loopback and forwards every request to --upstream (its path appended to the upstream's), \
            recording each exchange into --record as HAR 1.2 with every secret replaced by a placeholder and the \
            fail-closed scan run on every write. Point the app at the printed URL instead of the service. \
            --mode once (the default) records when the file does not exist and replays it when it does; \
            newEpisodes replays what it has and records the rest; none only replays; all records anew. Prints the \
            proxy's URL, then "ready"; stops on SIGINT or SIGTERM. A request the recording cannot answer (mode \
            none) is 404 with the closest recorded request; an upstream that fails is 502 with the Mend error.
            """)

    @Option(help: "The HAR file to record into (and replay from).")
    var record: String

    @Option(help: "The service's base URL (http or https).")
    var upstream: String

    @Option(help: "once, newEpisodes, none or all.")
    var mode: String = "once"

    @Option(help: "The loopback address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "The port (0: any free port).")
    var port: Int = 0

    @Option(name: .long, help: "Also redact the values of this parameter, JSON member or header (repeatable).")
    var redact: [String] = []

    @Option(name: .long, help: "Keep this name's values although they look random (repeatable).")
    var allow: [String] = []

    func validate() throws {
        guard RecordMode(rawValue: mode) != nil else {
            throw ValidationError(
                "--mode must be one of: \(RecordMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let url = URL(string: upstream), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--upstream must be an absolute http or https URL, not '\(upstream)'")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    /// The shared client's settings (``AsyncHTTPClientTransport/sharedClient``), with no redirect followed.
    static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    func run() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else {
            throw ServerRequiresNewerSystem(serverName: "mend proxy")
        }
        var rules = RedactionRules()
        for name in redact { rules.redact(name) }
        for name in allow { rules.allow(name) }
        // A client of its own that follows no redirect: a proxy passes every answer back as it came, a 3xx too
        // (a login dialog's 302 is the answer that carries the code, for the app's redirect URI — never the
        // proxy's to fetch).
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration)
        let transport: RecordingTransport
        do {
            transport = try RecordingTransport(
                wrapping: AsyncHTTPClientTransport(client: client), file: URL(fileURLWithPath: record),
                mode: RecordMode(rawValue: mode) ?? .once, rules: rules,
                // Each failure classified as `mend explain` would (the API's shape from the body): `_mend` agrees.
                errorDecoder: ExplainingErrorDecoder(), catalog: .everySpace)
        } catch {
            StandardError.write("error: \(error.developerMessage)")
            throw ExitCode(ExitCodes.badInput)
        }
        var logger = Logger(label: "mend.proxy") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let application = Application(
            responder: RecordingProxy(transport: transport, upstream: URL(string: upstream)!),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "mend proxy"),
            logger: logger)
        let file = record
        let effective = transport.effectiveMode
        try await ServerRunLoop.runUntilSignalled(application) { server in
            FileHandle.standardOutput.write(
                Data(
                    """
                    mend proxy: \(server.baseURL.absoluteString) → \(upstream), \
                    \(effective == .none ? "replaying" : "recording into") \(file) (mode \(effective.rawValue))
                    ready

                    """.utf8))
        }
        try? await client.shutdown()
    }
}

/// Forwards each request to the upstream through the recording transport.
@available(macOS 14, iOS 17, tvOS 17, *)
struct RecordingProxy: HTTPResponder {
    typealias Context = BasicRequestContext

    let transport: RecordingTransport
    let upstream: URL

    /// Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 32 << 20)
        let base = upstream.path.hasSuffix("/") ? String(upstream.path.dropLast()) : upstream.path
        let query = request.uri.query.map { "?\($0)" } ?? ""
        var headers = HTTPFields()
        for field in request.headers where !Self.hopByHop.contains(field.name.canonicalName) {
            headers.append(field)
        }
        let port = upstream.port.map { ":\($0)" } ?? ""
        let head = HTTPRequest(
            method: request.method, scheme: upstream.scheme, authority: "\(upstream.host ?? "")\(port)",
            path: base + request.uri.path + query, headerFields: headers)
        do {
            let (response, responseBody) = try await transport.send(
                head, body: body.readableBytes == 0 ? nil : HTTPBody(Data(body.readableBytesView)),
                timeout: .seconds(60))
            guard case .complete(let data) = try await responseBody.collect(upTo: 64 << 20) else {
                throw MendError(
                    code: .Transport.responseTooLarge, developerMessage: "The answer is too large.", catalog: .core)
            }
            var fields = HTTPFields()
            for field in response.headerFields where !Self.hopByHop.contains(field.name.canonicalName) {
                fields.append(field)
            }
            return Response(
                status: response.status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        } catch let error as MendError {
            let status: HTTPResponse.Status = error.code == .Transport.replayMismatch ? .notFound : .badGateway
            return Response(
                status: status, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: error.wireBody.jsonText())))
        }
    }
}
