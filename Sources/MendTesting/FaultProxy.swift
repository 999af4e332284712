public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1

/// An HTTP proxy on 127.0.0.1 in front of a server that has no fault injection of its own (`mend-server`): it
/// forwards each request, or fails it the way networks and load balancers do — before or after the server
/// committed it.
///
/// ```swift
/// try await FaultProxy.withProxy(upstream: server.baseURL, decide: { request in
///     request.path.hasSuffix("/v1/session/refresh") ? .dropAfterCommit : nil
/// }) { proxy in
///     let backend = BackendSessionClient(baseURL: proxy.baseURL, transport: transport)
/// }
/// ```
public final class FaultProxy: Sendable {
    /// How a request fails.
    public enum Fault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A 503 with an HTML body, as a load balancer answers; the server never sees the request.
        case serviceUnavailable
        /// The connection is closed before the request is forwarded; the server never sees it.
        case dropBeforeForwarding
        /// The request is forwarded and answered by the server (it committed), then the connection is closed
        /// without the answer: the client cannot tell whether anything happened.
        case dropAfterCommit
        /// The request is forwarded and answered, then the answer is held for ``FaultProxy/holdTime`` and the
        /// connection closed: the client times out first.
        case timeoutAfterCommit

        /// The fault's name.
        public var description: String { rawValue }
    }

    /// What was forwarded or failed, counted.
    public struct Counts: Sendable, Hashable {
        /// Requests forwarded and answered normally.
        public var forwarded = 0
        /// Requests failed, by fault.
        public var faults: [Fault: Int] = [:]
    }

    /// The server the proxy forwards to.
    public let upstream: URL
    /// How long a ``Fault/timeoutAfterCommit`` answer is held.
    public let holdTime: Duration
    private let server: LoopbackHTTPServer
    private let counts: LockedCounts

    private init(upstream: URL, holdTime: Duration, server: LoopbackHTTPServer, counts: LockedCounts) {
        self.upstream = upstream
        self.holdTime = holdTime
        self.server = server
        self.counts = counts
    }

    /// The proxy's base URL (`http://127.0.0.1:<port>`): give it to clients instead of the server's.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// What was forwarded and failed so far.
    public var statistics: Counts { counts.withLock { $0 } }

    /// Runs a proxy to `upstream` for the duration of `body`; `decide` picks a fault for a request, or `nil` to
    /// forward it.
    public static func withProxy<Result: Sendable>(
        upstream: URL, holdTime: Duration = .seconds(3),
        decide: @escaping @Sendable (LoopbackHTTPServer.Request) -> Fault?,
        body: (FaultProxy) async throws -> Result
    ) async throws -> Result {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5))))
        let counts = LockedCounts()
        do {
            let result = try await LoopbackHTTPServer.withServer({ request in
                let fault = decide(request)
                switch fault {
                case .serviceUnavailable:
                    counts.withLock { $0.faults[.serviceUnavailable, default: 0] += 1 }
                    return .text(
                        503, "<html><body>503 Service Temporarily Unavailable</body></html>",
                        headers: [("Content-Type", "text/html")])
                case .dropBeforeForwarding:
                    counts.withLock { $0.faults[.dropBeforeForwarding, default: 0] += 1 }
                    return .drop
                case .dropAfterCommit, .timeoutAfterCommit, nil:
                    let reply = await forward(request, to: upstream, client: client)
                    guard let fault else {
                        counts.withLock { $0.forwarded += 1 }
                        return reply
                    }
                    counts.withLock { $0.faults[fault, default: 0] += 1 }
                    return fault == .dropAfterCommit ? .drop : .delayed(holdTime, .drop)
                }
            }) { server in
                try await body(FaultProxy(upstream: upstream, holdTime: holdTime, server: server, counts: counts))
            }
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "host",
        "content-length",
    ]

    /// Sends `request` to `upstream` and returns its answer as the proxy's reply; a 502 when the upstream fails.
    private static func forward(
        _ request: LoopbackHTTPServer.Request, to upstream: URL, client: HTTPClient
    ) async -> LoopbackHTTPServer.Reply {
        var outgoing = HTTPClientRequest(url: upstream.absoluteString + request.path)
        outgoing.method = HTTPMethod(rawValue: request.method)
        // The client's Host goes on (a reverse proxy's `proxy_set_header Host $host`): the server sees the URL the
        // client sent to, which a DPoP proof names.
        for (name, value) in request.headers where !hopByHop.contains(name.lowercased()) || name.lowercased() == "host"
        {
            outgoing.headers.add(name: name, value: value)
        }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        do {
            let response = try await client.execute(outgoing, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            let headers = response.headers.filter { !hopByHop.contains($0.name.lowercased()) }.map {
                ($0.name, $0.value)
            }
            return .response(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch {
            return .text(502, "<html><body>502 Bad Gateway</body></html>", headers: [("Content-Type", "text/html")])
        }
    }
}

/// The proxy's counts, behind a lock.
private final class LockedCounts: @unchecked Sendable {
    // Safe: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = FaultProxy.Counts()

    func withLock<T>(_ body: (inout FaultProxy.Counts) -> T) -> T {
        lock.withLock { body(&value) }
    }
}
