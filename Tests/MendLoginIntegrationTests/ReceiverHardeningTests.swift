import Foundation
import MendCore
import MendEmulator
import MendTesting
import Testing

@_spi(MendFuzzing) @testable import MendLogin

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw TCP client of the loopback receiver: what any local process can do to it.
final class RawLoopbackClient: @unchecked Sendable {
    // Safe: `descriptor` is set once in init; the socket calls are thread-safe.
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Darwin)
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            _ = closeDescriptor(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    /// Sends bytes (never raising SIGPIPE here); `false` once the peer is gone.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Darwin)
            let sent = bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress!, $0.count, 0) }
        #else
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        #endif
        return sent == bytes.count
    }

    /// Closes with a reset (SO_LINGER 0) instead of an orderly FIN.
    func reset() {
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        _ = closeDescriptor(descriptor)
    }

    func close() { _ = closeDescriptor(descriptor) }

    /// Waits on a thread of its own until the peer closes the connection (a read returns 0 or fails).
    func waitUntilClosedByPeer() async {
        await withCheckedContinuation { continuation in
            Thread { [descriptor] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress!, $0.count) }) > 0 {}
                continuation.resume()
            }.start()
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

@Suite("The loopback receiver against hostile local peers")
struct ReceiverHardeningTests {
    @Test("An idle connection (a preconnect) and one trickling bytes do not hold up the browser's redirect")
    func slowPeersDoNotBlockTheRedirect() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let port = try #require(receiver.redirectURI.port)
        async let redirect = receiver.waitForRedirect(state: "good-state", timeout: .seconds(60))
        let idle = try RawLoopbackClient(port: port)
        let slow = try RawLoopbackClient(port: port)
        let trickle = Task {
            slow.send("GET /callback?state=good-state HTTP/1.1\r\n")
            while !Task.isCancelled, slow.send("X") {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let url = "\(receiver.redirectURI.absoluteString)?code=c&state=good-state"
        let (body, response) = try await URLSession.shared.data(from: URL(string: url)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("You can close this tab"))
        #expect(try await redirect == url)
        // Stop sending before closing: a send on a closed descriptor number could land in another socket.
        trickle.cancel()
        await trickle.value
        idle.close()
        slow.close()
    }

    @Test("A connection that never finishes its request head is dropped at its deadline, and the wait goes on")
    func connectionDeadline() async throws {
        let receiver = try LoopbackRedirectReceiver(connectionTimeout: .milliseconds(500))
        let port = try #require(receiver.redirectURI.port)
        let waiting = Task { try await receiver.waitForRedirect(state: "good-state", timeout: .seconds(60)) }
        let slow = try RawLoopbackClient(port: port)
        let trickle = Task {
            slow.send("GET /callback?state=good-state HTTP/1.1\r\n")
            while !Task.isCancelled, slow.send("X") {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        // The receiver closes the trickling connection long before the login's own timeout…
        await slow.waitUntilClosedByPeer()
        // (stop sending before closing: a send on a closed descriptor number could land in another socket)
        trickle.cancel()
        await trickle.value
        slow.close()
        // …and is still waiting for the real redirect, which it then takes.
        let url = "\(receiver.redirectURI.absoluteString)?code=c&state=good-state"
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try await waiting.value == url)
    }

    @Test("Many connections at once: the oldest are dropped, the redirect still gets through")
    func connectionFlood() async throws {
        let limit = 4
        let receiver = try LoopbackRedirectReceiver(maximumConnections: limit)
        let port = try #require(receiver.redirectURI.port)
        async let redirect = receiver.waitForRedirect(state: "s", timeout: .seconds(60))
        let flood = try (0..<32).map { _ in try RawLoopbackClient(port: port) }
        defer { flood.forEach { $0.close() } }
        // The receiver takes the connections in order and drops the oldest past its limit: all but the newest
        // `limit` are closed by the receiver while none of them has sent a byte.
        for client in flood.dropLast(limit) {
            await client.waitUntilClosedByPeer()
        }
        let url = "\(receiver.redirectURI.absoluteString)?code=c&state=s"
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try await redirect == url)
    }

    @Test("A request head split across many reads, with bare LF line ends, is parsed")
    func splitHead() async throws {
        // A connection deadline far above the pauses: on a loaded machine the pauses stretch, and the deadline is not
        // what this test checks.
        let receiver = try LoopbackRedirectReceiver(connectionTimeout: .seconds(300))
        let port = try #require(receiver.redirectURI.port)
        async let redirect = receiver.waitForRedirect(state: "s", timeout: .seconds(60))
        let client = try RawLoopbackClient(port: port)
        defer { client.close() }
        for piece in ["GE", "T /callback?co", "de=c&state=s HT", "TP/1.0\n", "Host: x\n", "\n"] {
            client.send(piece)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await redirect == "http://127.0.0.1:\(port)/callback?code=c&state=s")
    }

    @Test(
        "The request head parser",
        arguments: [
            ("GET /callback?a=b HTTP/1.1\r\nHost: x\r\n\r\n", LoopbackRequestHead.Parsed.target("/callback?a=b")),
            ("GET /callback HTTP/1.1\r\nHost: x\r\n", .incomplete),
            ("POST /callback HTTP/1.1\r\n\r\n", .refused),
            ("GET /callback\r\n\r\n", .refused),
            ("GET  /callback HTTP/1.1\r\n\r\n", .refused),
            ("GET /callback HTTP/2\r\n\r\n", .refused),
            ("", .incomplete),
            ("\r\n\r\n", .refused),
        ])
    func headParser(head: String, expected: LoopbackRequestHead.Parsed) {
        #expect(LoopbackRequestHead.parse(Array(head.utf8)) == expected)
    }

    @Test("A request line that is not UTF-8 is refused; a Latin-1 header does not spoil a good request line")
    func invalidUTF8() {
        #expect(LoopbackRequestHead.parse([0x47, 0x45, 0x54, 0x20, 0xFF, 0xFE, 0x0A, 0x0A]) == .refused)
        let latin1Header = Array("GET /callback?s=1 HTTP/1.1\r\nX-Name: Ren".utf8) + [0xE9] + Array("\r\n\r\n".utf8)
        #expect(LoopbackRequestHead.parse(latin1Header) == .target("/callback?s=1"))
    }

    @Test("close() while waiting ends the wait; the receiver cannot be waited on again")
    func closeWhileWaiting() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { try await receiver.waitForRedirect(state: "s", timeout: .seconds(60)) }
        // Make sure the wait has begun serving: a wrong path is answered.
        let wrong = URL(string: receiver.redirectURI.absoluteString + "-not")!
        let (_, response) = try await URLSession.shared.data(from: wrong)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        receiver.close()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        await #expect(throws: CancellationError.self) { _ = try await receiver.waitForRedirect(state: "s") }
    }
}

@Suite("mend login against hostile local peers", .enabled(if: MendExecutable.url != nil))
struct LoginReceiverProcessTests {
    /// Any local process can connect to the login's redirect port, send part of a request and reset the connection.
    /// The receiver answers the broken request; writing to the reset socket must not raise SIGPIPE, which would kill
    /// `mend login` (or a desktop app) on the spot.
    @Test("A peer that resets its connection does not kill mend login, which then completes")
    func resetPeer() async throws {
        try await withEmulator { emulator in
            // Run with SIGPIPE's default action (killing), as from a shell: a test runner may ignore SIGPIPE, and
            // a child inherits that.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "--default-signal=PIPE", try #require(MendExecutable.url).path,
                "login", "--base-url", emulator.baseURL.absoluteString, "--app-id",
                emulator.emulator.configuration.defaultApp.id, "--no-browser", "--state-directory",
                temporaryDirectory().path,
            ]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let authorizationURL = try #require(await Self.authorizationURL(from: errors))
            let components = try #require(URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false))
            let redirect = try #require(
                components.queryItems?.first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
            let port = try #require(redirect.port)
            for _ in 0..<3 {
                let attacker = try RawLoopbackClient(port: port)
                attacker.send("GET /callback?state=forged HT")
                attacker.reset()
            }
            try await HeadlessConsentBrowser().open(authorizationURL)
            await process.exited()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .exit, "mend login was killed by signal \(process.terminationStatus)")
            #expect(process.terminationStatus == 0)
            #expect(printed.contains("Logged in as"))
        }
    }

    /// Reads standard error on a thread of its own until it has printed the authorization URL.
    static func authorizationURL(from pipe: Pipe) async -> URL? {
        await withCheckedContinuation { continuation in
            Thread {
                var text = ""
                while true {
                    let data = pipe.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    text += String(decoding: data, as: UTF8.self)
                    if let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("http") }),
                        text.hasSuffix("\n")
                    {
                        continuation.resume(returning: URL(string: String(line)))
                        return
                    }
                }
                continuation.resume(returning: nil)
            }.start()
        }
    }
}
