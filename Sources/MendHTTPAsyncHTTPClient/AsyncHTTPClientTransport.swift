public import AsyncHTTPClient
public import Foundation
public import HTTPTypes
import MendCore
public import MendHTTP
import NIOCore
import NIOHTTP1
import NIOPosix

/// The AsyncHTTPClient transport: for servers, command-line tools and Linux.
///
/// Responses stream, so the pipeline's size limit bounds memory. Failures below HTTP become transport-domain
/// `MendError`s; cancelling the task throws `CancellationError`.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client that carries requests.
    package let client: HTTPClient
    /// The timeout of a request that has none of its own.
    package var defaultTimeout: Duration

    /// Creates a transport over `client` (by default ``sharedClient``).
    public init(client: HTTPClient = AsyncHTTPClientTransport.sharedClient, defaultTimeout: Duration = .seconds(60)) {
        self.client = client
        self.defaultTimeout = defaultTimeout
    }

    /// The process-wide client of transports that were given none: AsyncHTTPClient's shared configuration, except
    /// that a failed connection attempt fails the request at once instead of being retried inside the connection
    /// pool until the deadline — Mend's retry policy decides about retries (a refused connection is safe to retry,
    /// within the budget). Its own tracing is off: MendTelemetry traces each attempt to OpenTelemetry's conventions,
    /// and AsyncHTTPClient would add a second span per attempt with older attribute names. It lives as long as the
    /// process, like `HTTPClient.shared`.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends `request` within `timeout` (`defaultTimeout` without one) and returns the response head and its body.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        guard let scheme = request.scheme, let authority = request.authority else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The request has no absolute URL.", catalog: .core)
        }
        var outgoing = HTTPClientRequest(
            url: Self.urlText(scheme: scheme, authority: authority, path: request.path ?? "/"))
        if request.method != .get { outgoing.method = .init(rawValue: request.method.rawValue) }
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.canonicalName, value: field.value)
        }
        if let body {
            guard case .complete(let data) = try await body.collect(upTo: .max) else { fatalError("unbounded collect") }
            outgoing.body = .bytes(ByteBuffer(bytes: data))
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: .now() + TimeAmount(timeout ?? defaultTimeout))
        } catch {
            throw await Self.map(error, scheme: scheme, authority: authority)
        }
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        var length: Int?
        for header in response.headers {
            guard let name = Self.fieldName(header.name) else { continue }
            if name == .contentLength { length = Int(header.value) }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let head = HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields)
        let body = response.body
        return (
            head,
            HTTPBody(expectedLength: length) { limit in
                do {
                    // The first chunk is kept as it is (most bodies arrive in one); later ones are appended to it.
                    var collected: ByteBuffer?
                    for try await var buffer in body {
                        let held = collected?.readableBytes ?? 0
                        guard held + buffer.readableBytes <= limit else {
                            var prefix = collected ?? ByteBuffer()
                            if let slice = buffer.readSlice(length: limit - held) { prefix.writeImmutableBuffer(slice) }
                            return .tooLarge(prefix: prefix.withUnsafeReadableBytes { Data($0) }, limit: limit)
                        }
                        if collected == nil { collected = buffer } else { collected?.writeBuffer(&buffer) }
                    }
                    // One copy, straight from the buffer's memory (Data's generic initializer probes the sequence
                    // with dynamic casts first).
                    return .complete(collected?.withUnsafeReadableBytes { Data($0) } ?? Data())
                } catch {
                    throw Self.map(error)
                }
            }
        )
    }

    /// `scheme://authority/path`, written into one new string (appending part by part grows and checks it three
    /// times; a nested function that advanced a captured offset paid the runtime's exclusivity check on each part).
    static func urlText(scheme: String, authority: String, path: String) -> String {
        var (scheme, authority, path) = (scheme, authority, path)
        return scheme.withUTF8 { scheme in
            authority.withUTF8 { authority in
                path.withUTF8 { path in
                    String(unsafeUninitializedCapacity: scheme.count + 3 + authority.count + path.count) { buffer in
                        let start = buffer.baseAddress!
                        var end = copy(scheme, to: start)
                        end = copy(UnsafeBufferPointer(start: separator.utf8Start, count: 3), to: end)
                        end = copy(authority, to: end)
                        return copy(path, to: end) - start
                    }
                }
            }
        }
    }

    /// Copies `bytes` to `destination`; where they end.
    private static func copy(
        _ bytes: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8> {
        guard let base = bytes.baseAddress else { return destination }
        destination.initialize(from: base, count: bytes.count)
        return destination + bytes.count
    }

    private static let separator: StaticString = "://"

    /// The field name of a response header: the names most responses carry without validating and lower-casing
    /// them again (SwiftNIO's parser has checked them), any other through `HTTPField.Name`, which does.
    static func fieldName(_ name: String) -> HTTPField.Name? {
        switch name {
        case "Content-Type", "content-type": .contentType
        case "Content-Length", "content-length": .contentLength
        case "Date", "date": .date
        case "Connection", "connection": .connection
        case "Cache-Control", "cache-control": .cacheControl
        case "Server", "server": .server
        case "Vary", "vary": .vary
        case "Transfer-Encoding", "transfer-encoding": .transferEncoding
        default: HTTPField.Name(name)
        }
    }

    /// Maps AsyncHTTPClient and SwiftNIO errors to transport-domain `MendError`s (cancellation stays cancellation);
    /// `target` (`http://127.0.0.1:8080`) names where a connection could not be made, in words a developer reads
    /// (SwiftNIO's own are `connection reset (error set): Connection refused (errno: 111)`). A failed TLS handshake is
    /// said in words too (``TLSFailure``), without reading the certificate (the `async` overload does).
    package static func map(_ error: any Error, target: String? = nil) -> any Error {
        if let target, let refused = refusal(error) {
            var mendError = MendError(
                code: .Transport.cannotConnect, developerMessage: "Could not connect to \(target): \(refused).",
                catalog: .core)
            mendError.underlying = UnexpectedFailure(description: String(describing: error))
            return mendError
        }
        if error is CancellationError || error is MendError { return error }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .cancelled:
                return CancellationError()
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout,
                .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return transportError(.Transport.timedOut, clientError)
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return transportError(.Transport.connectionLost, clientError)
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
                return transportError(.Transport.invalidRequest, clientError)
            default:
                return transportError(.Transport.unclassified, clientError)
            }
        }
        if let connectionError = error as? NIOConnectionError {
            let onlyDNS =
                connectionError.connectionErrors.isEmpty
                && (connectionError.dnsAError != nil || connectionError.dnsAAAAError != nil)
            return transportError(onlyDNS ? .Transport.cannotFindHost : .Transport.cannotConnect, error)
        }
        if let ioError = error as? IOError {
            switch ioError.errnoCode {
            case ECONNREFUSED: return transportError(.Transport.cannotConnect, error)
            case ECONNRESET, EPIPE: return transportError(.Transport.connectionLost, error)
            case ENETUNREACH, ENETDOWN, EHOSTUNREACH: return transportError(.Transport.notConnected, error)
            case ETIMEDOUT: return transportError(.Transport.timedOut, error)
            default: return transportError(.Transport.connectionLost, error)
            }
        }
        if let channelError = error as? ChannelError, case .connectTimeout = channelError {
            return transportError(.Transport.timedOut, error)
        }
        if let failure = TLSFailure(error) {
            return failure.mendError(
                server: target.flatMap(TLSServer.init(target:)), certificate: nil, underlying: error)
        }
        if String(reflecting: type(of: error)).contains("HTTPParserError") {
            return transportError(.Transport.malformedResponse, error)
        }
        return transportError(.Transport.unclassified, error)
    }

    /// ``map(_:target:)`` for a request to `scheme://authority`. A failed TLS handshake whose certificate did not
    /// verify, or is for another host, is read further: one more connection to the server reads the certificate, to
    /// say what is wrong with it (``TLSFailure``, ``ServerCertificate/read(from:timeout:)``).
    static func map(_ error: any Error, scheme: String, authority: String) async -> any Error {
        guard let failure = TLSFailure(error) else { return map(error, target: "\(scheme)://\(authority)") }
        let server = TLSServer(scheme: scheme, authority: authority)
        let certificate = failure.needsCertificate ? await ServerCertificate.read(from: server) : nil
        return failure.mendError(server: server, certificate: certificate, underlying: error)
    }

    /// The words for a connection that could not be made, when `error` is one.
    private static func refusal(_ error: any Error) -> String? {
        let errors = (error as? NIOConnectionError)?.connectionErrors.map(\.error) ?? [error]
        for error in errors {
            guard let code = (error as? IOError)?.errnoCode else { continue }
            switch code {
            case ECONNREFUSED: return "the connection was refused (nothing listens there)"
            case ENETUNREACH, EHOSTUNREACH: return "the host cannot be reached"
            default: continue
            }
        }
        if let connection = error as? NIOConnectionError, connection.connectionErrors.isEmpty {
            return "the host name does not resolve"
        }
        return nil
    }

    private static func transportError(_ code: MendError.Code, _ error: any Error) -> MendError {
        var mendError = MendError(
            code: code, developerMessage: "AsyncHTTPClient: \(String(describing: error))", catalog: .core)
        mendError.underlying = UnexpectedFailure(description: String(describing: error))
        return mendError
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
