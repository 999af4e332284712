import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import MendServing
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The run loop every in-process server shares: ready only once it accepts connections, stopped after the block
/// (whether it returns or throws), a start failure reported instead of a hang.
@Suite struct ServerRunLoopTests {
    @available(macOS 14, iOS 17, tvOS 17, *)
    static func helloApplication(port: Int = 0, serverName: String = "hello") -> some ApplicationProtocol {
        let router = Router()
        router.get("/hello") { _, _ in "hello" }
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: serverName),
            logger: Logger(label: "hello", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    static func get(_ url: URL) async throws -> String {
        // A guard against a hang, not a speed bound: the whole suite runs in parallel on CI's loaded 2-core machine.
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
        return String(buffer: try await response.body.collect(upTo: 1 << 16))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` (a refused connect answers at once, unlike an
    /// HTTP client that retries until its deadline).
    static func accepts(port: Int) -> Bool {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    /// Whether the server named `name` still answers on 127.0.0.1:`port`. Other tests run servers on free ports at
    /// the same time, and one may be given a port a stopped server freed: a connection alone does not say which
    /// server answered, its `Server` header does.
    static func serves(_ name: String, port: Int) async -> Bool {
        guard accepts(port: port) else { return false }
        guard
            let response = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/hello"), timeout: .seconds(60))
        else { return false }
        return response.headers["Server"].first == name
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func servesOnAFreeLoopbackPortForTheBlockThenStops() async throws {
        let name = "hello-\(UUID().uuidString)"
        let port = try await ServerRunLoop.withRunning(Self.helloApplication(serverName: name)) { server in
            #expect(server.host == "127.0.0.1")
            #expect(server.port > 0)
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            let answer = try await Self.get(server.baseURL.appendingPathComponent("hello"))
            #expect(answer == "hello")
            #expect(await Self.serves(name, port: server.port))
            return server.port
        }
        #expect(await !Self.serves(name, port: port))
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func stopsWhenTheBlockThrows() async throws {
        struct Expected: Error {}
        let port = LockedPort()
        let name = "hello-\(UUID().uuidString)"
        await #expect(throws: Expected.self) {
            try await ServerRunLoop.withRunning(Self.helloApplication(serverName: name)) { server in
                port.set(server.port)
                throw Expected()
            }
        }
        #expect(port.get() > 0)
        #expect(await !Self.serves(name, port: port.get()))
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aGracefulShutdownBegunInTheBlockEndsTheServer() async throws {
        let answered = try await ServerRunLoop.withRunning(Self.helloApplication()) { server in
            let answer = try await Self.get(server.baseURL.appendingPathComponent("hello"))
            await server.beginGracefulShutdown()
            return answer
        }
        #expect(answered == "hello")
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func aPortInUseFailsToStartInsteadOfHanging() async throws {
        try await ServerRunLoop.withRunning(Self.helloApplication()) { first -> Void in
            await #expect(throws: (any Error).self) {
                try await ServerRunLoop.withRunning(Self.helloApplication(port: first.port)) { _ in
                    Issue.record("a second server started on port \(first.port)")
                }
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, *)
    @Test func runUntilSignalledReportsReadinessAndEndsOnAGracefulShutdown() async throws {
        let task = Task {
            try await ServerRunLoop.runUntilSignalled(Self.helloApplication(), signals: []) { server in
                let answer = try await Self.get(server.baseURL.appendingPathComponent("hello"))
                #expect(answer == "hello")
                await server.beginGracefulShutdown()
            }
        }
        try await task.value
    }

    @Test("A port in use is named with its host and what to do, not SwiftNIO's bind(descriptor:ptr:bytes:) words")
    func portInUse() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, *) else { return }
        try await ServerRunLoop.withRunning(Self.helloApplication()) { first in
            let refused = await #expect(throws: ServerStartFailure.self) {
                try await ServerRunLoop.withRunning(Self.helloApplication(port: first.port, serverName: "second")) {
                    _ in
                }
            }
            // Failed before: "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)".
            #expect(
                refused?.description
                    == "second could not start: 127.0.0.1:\(first.port) is already in use (another server listens "
                    + "there): choose another port, or 0 for any free one")
        }
    }

    @Test func baseURLsBracketIPv6() {
        #expect(RunningServer.baseURL(host: "::1", port: 8080).absoluteString == "http://[::1]:8080")
        #expect(RunningServer.baseURL(host: "127.0.0.1", port: 80).absoluteString == "http://127.0.0.1:80")
        #expect(ServerStartFailure(serverName: "hello").description == "hello stopped before it was ready")
    }
}

/// A port handed out of a throwing block.
final class LockedPort: @unchecked Sendable {
    // Safe: guarded by the lock.
    private let lock = NSLock()
    private var port = 0
    func set(_ value: Int) { lock.withLock { port = value } }
    func get() -> Int { lock.withLock { port } }
}
