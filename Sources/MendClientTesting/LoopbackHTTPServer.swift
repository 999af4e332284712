public import Foundation
import MendCore
public import NIOCore
import NIOHTTP1
import NIOPosix

/// A scriptable HTTP/1.1 server on 127.0.0.1, port 0, for live tests of transports and clients.
///
/// Every reply is written as raw bytes, so a test can send what well-behaved servers never do: a truncated body,
/// a dropped connection, a lying `Content-Length`.
///
/// ```swift
/// try await LoopbackHTTPServer.withServer { request in .text(503, "<html>down</html>") } body: { server in
///     let url = server.url("/me")
/// }
/// ```
public final class LoopbackHTTPServer: Sendable {
    /// A request as the server received it.
    public struct Request: Sendable {
        /// The method.
        public var method: String
        /// The path with its query.
        public var path: String
        /// The header fields, in order.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: Data

        /// The first value of a header (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What the server answers.
    public enum Reply: Sendable {
        /// A complete response (the connection stays open for the next request).
        case response(status: Int, headers: [(String, String)], body: Data)
        /// Bytes written as they are, then the connection is closed.
        case raw(Data)
        /// The connection is closed without a response.
        case drop
        /// Waits, then replies.
        indirect case delayed(Duration, Reply)

        /// A response with a text body.
        public static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            .response(status: status, headers: headers, body: Data(body.utf8))
        }

        /// A JSON response.
        public static func json(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            .response(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(body.utf8))
        }

        /// A response that declares `declaredLength` bytes, sends `body` (fewer), and closes.
        public static func truncated(_ status: Int, body: String, declaredLength: Int) -> Reply {
            .raw(
                Data(
                    "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(declaredLength)\r\n\r\n\(body)"
                        .utf8))
        }
    }

    /// The bound port.
    public let port: Int
    private let channel: any Channel
    private let received = Locked<[Request]>([])

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// An absolute URL on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Every request received so far.
    public var requests: [Request] { received.withLock { $0 } }

    fileprivate func record(_ request: Request) { received.withLock { $0.append(request) } }

    /// Starts a server answering with `handler`, runs `body`, and always shuts the server down.
    public static func withServer<Result: Sendable>(
        _ handler: @escaping @Sendable (Request) async -> Reply,
        body: (LoopbackHTTPServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(handler)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// Starts a server; call ``shutdown()`` when done (prefer ``withServer(_:body:)``).
    public static func start(_ handler: @escaping @Sendable (Request) async -> Reply) async throws -> LoopbackHTTPServer
    {
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedHandler(handler: handler, record: { box.server?.record($0) }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = LoopbackHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel)
        box.server = server
        return server
    }

    /// Stops accepting connections.
    public func shutdown() async throws {
        try await channel.close()
    }
}

/// Lets child handlers reach the server object created after the bootstrap.
private final class ServerBox: @unchecked Sendable {
    // Safe: written once, before the first connection can be accepted (bind completes before `start` returns and
    // tests connect only after that); read-only afterwards.
    var server: LoopbackHTTPServer?
}

private final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    let handler: @Sendable (LoopbackHTTPServer.Request) async -> LoopbackHTTPServer.Reply
    let record: @Sendable (LoopbackHTTPServer.Request) -> Void
    private var head: HTTPRequestHead?
    private var body = Data()

    init(
        handler: @escaping @Sendable (LoopbackHTTPServer.Request) async -> LoopbackHTTPServer.Reply,
        record: @escaping @Sendable (LoopbackHTTPServer.Request) -> Void
    ) {
        self.handler = handler
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = Data()
        case .body(var buffer):
            body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            guard let head else { return }
            let request = LoopbackHTTPServer.Request(
                method: head.method.rawValue, path: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body)
            record(request)
            let handler = self.handler
            let promise = context.eventLoop.makePromise(of: LoopbackHTTPServer.Reply.self)
            promise.completeWithTask { await Self.resolve(handler(request)) }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { reply in
                Self.write(reply, context: bound.value)
            }
        }
    }

    private static func resolve(_ reply: LoopbackHTTPServer.Reply) async -> LoopbackHTTPServer.Reply {
        guard case .delayed(let duration, let next) = reply else { return reply }
        try? await Task.sleep(for: duration)
        return await resolve(next)
    }

    private static func write(_ reply: LoopbackHTTPServer.Reply, context: ChannelHandlerContext) {
        switch reply {
        case .response(let status, let headers, let body):
            var text = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(body.count)\r\n\r\n"
            var buffer = context.channel.allocator.buffer(capacity: text.utf8.count + body.count)
            buffer.writeString(text)
            buffer.writeBytes(body)
            context.writeAndFlush(NIOAny(buffer), promise: nil)
        case .raw(let bytes):
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.writeAndFlush(NIOAny(buffer), promise: nil)
            context.close(promise: nil)
        case .drop:
            context.close(promise: nil)
        case .delayed(_, let next):
            write(next, context: context)
        }
    }
}
