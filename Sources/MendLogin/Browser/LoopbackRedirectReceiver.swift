public import Foundation
public import MendCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loopback redirect receiver of RFC 8252 §7.3, for command-line and desktop apps.
///
/// It listens on the IP literal `127.0.0.1` (or `[::1]`) at a port the system picks, accepts exactly one redirect —
/// a `GET` to the expected path carrying the expected `state` — answers it with a small "you can close this tab"
/// page, and closes. Anything else (another path, a wrong or missing state, a favicon request) gets a 4xx and the
/// receiver keeps waiting, until the timeout. Cancelling the waiting task closes it at once.
///
/// Any local process can connect to the port, so the receiver treats every connection as hostile:
/// - Connections are served side by side (up to ``maximumConnections``; the oldest is dropped past that), so an idle
///   connection (a browser's preconnect) or one that trickles bytes never holds up the real redirect.
/// - Each connection has a total deadline (``connectionTimeout``) to send its request head (at most 16 KiB).
/// - A peer that resets its connection cannot raise `SIGPIPE` (sends use `MSG_NOSIGNAL` / `SO_NOSIGPIPE`).
/// - The descriptors are owned by the thread that serves them while it runs: ``close()`` wakes that thread, which
///   closes them on its way out, so a descriptor number is never closed under a running `poll` or `accept` (where
///   the system could already have reused it for another file or socket).
package final class LoopbackRedirectReceiver: Sendable {
    /// Which loopback address to listen on.
    package typealias Address = LoopbackBrowserPresenter.Address

    /// The redirect URI to register with the authorization request: `http://127.0.0.1:<port>/<path>`.
    package let redirectURI: URL
    /// The path the redirect must arrive at.
    package let path: String
    /// How long one connection may take to send its request head before it is dropped.
    package let connectionTimeout: Duration
    /// How many connections are served at once; past that, the oldest is dropped.
    package let maximumConnections: Int

    private let listener: Int32
    /// A pipe whose read end wakes the serving thread (its write end is written by ``close()``).
    private let wake: (read: Int32, write: Int32)
    private let state = Locked(Lifecycle())

    private struct Lifecycle {
        /// ``close()`` was called, or the one redirect was received.
        var closing = false
        /// A thread is serving connections (and owns the descriptors until it ends).
        var serving = false
        /// The descriptors are closed.
        var released = false
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - path: The redirect's path (`/callback`).
    ///   - address: The loopback address.
    ///   - connectionTimeout: How long one connection may take to send its request head.
    ///   - maximumConnections: How many connections are served at once.
    package init(
        path: String = "/callback", address: Address = .ipv4, connectionTimeout: Duration = .seconds(10),
        maximumConnections: Int = 16
    ) throws(MendError) {
        self.path = path.hasPrefix("/") ? path : "/" + path
        self.connectionTimeout = connectionTimeout
        self.maximumConnections = max(1, maximumConnections)
        let (socket, port) = try Self.listen(address)
        var ends: [Int32] = [-1, -1]
        guard Self.makePipe(&ends) else {
            _ = systemClose(socket)
            throw Self.failure("pipe")
        }
        self.listener = socket
        self.wake = (ends[0], ends[1])
        let host = address == .ipv4 ? "127.0.0.1" : "[::1]"
        self.redirectURI = URL(string: "http://\(host):\(port)\(self.path)")!
    }

    deinit {
        // No thread can be serving here (it holds a reference to the receiver while it runs).
        releaseDescriptors()
    }

    /// Stops listening (idempotent). A wait in progress ends with `CancellationError`; its thread closes the
    /// descriptors as it leaves.
    package func close() {
        let serving = state.withLock { state in
            state.closing = true
            return state.serving
        }
        if serving {
            var byte: UInt8 = 1
            _ = systemWrite(wake.write, &byte, 1)
        } else {
            releaseDescriptors()
        }
    }

    /// Closes the descriptors once.
    private func releaseDescriptors() {
        let release = state.withLock { state in
            guard !state.released, !state.serving else { return false }
            state.released = true
            return true
        }
        guard release else { return }
        _ = systemClose(listener)
        _ = systemClose(wake.read)
        _ = systemClose(wake.write)
    }

    /// Waits for the redirect that carries `state`, and returns its full URL as received.
    ///
    /// - Throws: `transport/timedOut` when nothing valid arrived within `timeout`; `CancellationError` when the task
    ///   is cancelled or ``close()`` was called. Either way the receiver is closed.
    package func waitForRedirect(state: String, timeout: Duration = .seconds(300)) async throws -> String {
        // Real time on purpose, not the client's `PipelineClock`: it waits on sockets for a person's browser.
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let start = self.state.withLock { lifecycle -> Bool in
            guard !lifecycle.closing, !lifecycle.serving else { return false }
            lifecycle.serving = true
            return true
        }
        guard start else { throw CancellationError() }
        let outcome: Outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { [self] in
                    let outcome = self.serve(state: state, deadline: deadline)
                    self.state.withLock { lifecycle in
                        lifecycle.serving = false
                        lifecycle.closing = true
                    }
                    self.releaseDescriptors()
                    continuation.resume(returning: outcome)
                }
                thread.name = "mend.loopback-receiver"
                thread.start()
            }
        } onCancel: {
            self.close()
        }
        switch outcome {
        case .redirect(let url): return url
        case .timedOut:
            throw MendError(
                code: .Transport.timedOut,
                developerMessage: "No login redirect arrived at \(redirectURI.absoluteString) in time.", catalog: .login
            )
        case .closed: throw CancellationError()
        }
    }

    // MARK: Serving (a dedicated thread: poll over the listener, the wake pipe and every open connection)

    private enum Outcome: Sendable {
        case redirect(String)
        case timedOut
        case closed
    }

    private struct Connection {
        let descriptor: Int32
        let deadline: ContinuousClock.Instant
        var head: [UInt8] = []
    }

    private func serve(state expectedState: String, deadline: ContinuousClock.Instant) -> Outcome {
        var connections: [Connection] = []
        defer { for connection in connections { _ = systemClose(connection.descriptor) } }
        while true {
            let now = ContinuousClock.now
            if self.state.withLock({ $0.closing }) { return .closed }
            guard now < deadline else { return .timedOut }
            // Drop connections past their deadline.
            connections.removeAll { connection in
                guard connection.deadline <= now else { return false }
                _ = systemClose(connection.descriptor)
                return true
            }
            let wakeAt = connections.map(\.deadline).reduce(deadline, min)
            var descriptors = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            descriptors += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = systemPoll(&descriptors, UInt(descriptors.count), Self.milliseconds(now.duration(to: wakeAt)))
            guard ready > 0 else { continue }
            if descriptors[1].revents != 0 { return .closed }
            // Serve the connections that have something to read (or hung up); newest descriptors last.
            var finished: Set<Int32> = []
            for index in connections.indices where descriptors[index + 2].revents != 0 {
                switch Self.receive(&connections[index]) {
                case .needMore: continue
                case .failed:
                    finished.insert(connections[index].descriptor)
                case .head(let target):
                    let descriptor = connections[index].descriptor
                    finished.insert(descriptor)
                    guard let target else {
                        Self.respond(descriptor, status: "400 Bad Request", body: "Bad request.")
                        continue
                    }
                    switch LoopbackRequestCheck.check(target: target, path: path, state: expectedState) {
                    case .accept:
                        Self.respond(descriptor, status: "200 OK", body: Self.successPage)
                        let host = redirectURI.host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "127.0.0.1"
                        return .redirect("http://\(host):\(redirectURI.port ?? 0)\(target)")
                    case .wrongPath:
                        Self.respond(descriptor, status: "404 Not Found", body: "Not found.")
                    case .wrongState:
                        Self.respond(
                            descriptor, status: "400 Bad Request", body: "This is not the login this app started.")
                    }
                }
            }
            connections.removeAll { connection in
                guard finished.contains(connection.descriptor) else { return false }
                _ = systemClose(connection.descriptor)
                return true
            }
            if descriptors[0].revents != 0, let client = Self.acceptConnection(listener) {
                if connections.count >= maximumConnections {
                    _ = systemClose(connections.removeFirst().descriptor)
                }
                connections.append(Connection(descriptor: client, deadline: ContinuousClock.now + connectionTimeout))
            }
        }
    }

    static let successPage = """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Logged in</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>You can close this tab.</h1>
        <p>The app has received your login.</p></body></html>
        """

    /// The longest request head read from one connection.
    static let maximumHeadLength = 16 << 10

    private enum Received {
        case needMore
        case failed
        /// The head is complete: the target of a well-formed `GET`, or `nil` for anything else.
        case head(String?)
    }

    /// Reads what `connection` has (it is readable) and says whether its head is complete.
    private static func receive(_ connection: inout Connection) -> Received {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(connection.descriptor, $0.baseAddress!, $0.count) }
        guard count > 0 else { return .failed }
        connection.head += chunk[0..<count]
        switch LoopbackRequestHead.parse(connection.head) {
        case .target(let target): return .head(target)
        case .refused: return .head(nil)
        case .incomplete: return connection.head.count >= maximumHeadLength ? .head(nil) : .needMore
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Accepts one connection, non-blocking and close-on-exec; `nil` when it vanished before `accept`.
    private static func acceptConnection(_ listener: Int32) -> Int32? {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        #if canImport(Darwin)
            var yes: Int32 = 1
            _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return client
    }

    /// Sends a small response, best effort: a peer that stopped reading or reset the connection gets what fit.
    private static func respond(_ client: Int32, status: String, body: String) {
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { systemSend(client, $0.baseAddress! + sent, $0.count - sent) }
            guard count > 0 else { return }
            sent += count
        }
    }

    private static func listen(_ address: Address) throws(MendError) -> (Int32, Int) {
        let family = address == .ipv4 ? AF_INET : AF_INET6
        #if canImport(Darwin)
            let socketType = SOCK_STREAM
        #else
            let socketType = Int32(SOCK_STREAM.rawValue)
        #endif
        #if canImport(Darwin)
            let descriptor = systemSocket(family, socketType, 0)
            if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        #else
            let descriptor = systemSocket(family, socketType | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw failure("socket") }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if address == .ipv4 {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = 0
            socketAddress.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = 0
            socketAddress.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        // The system's largest backlog: a burst of local connections waits in the queue (the serving loop drops the
        // oldest past `maximumConnections`) instead of being refused, which would refuse the browser's redirect too.
        guard bound == 0, systemListen(descriptor, SOMAXCONN) == 0 else {
            _ = systemClose(descriptor)
            throw failure("bind/listen")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            address == .ipv4
                ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return (descriptor, Int(port))
    }

    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard ends.withUnsafeMutableBufferPointer({ pipe($0.baseAddress!) }) == 0 else { return false }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return true
    }

    private static func failure(_ call: String) -> MendError {
        MendError(
            code: .Transport.cannotConnect,
            developerMessage: "The loopback redirect receiver could not listen (\(call) failed, errno \(errno)).",
            catalog: .login)
    }
}

/// The receiver's decision about one request, as a pure function.
enum LoopbackRequestCheck: Equatable {
    case accept
    case wrongPath
    case wrongState

    static func check(target: String, path: String, state: String) -> LoopbackRequestCheck {
        let requestPath = String(target.prefix { $0 != "?" && $0 != "#" })
        guard requestPath == path else { return .wrongPath }
        let query = target.contains("?") ? String(target.drop { $0 != "?" }.dropFirst()) : ""
        guard let parameters = try? RedirectParser.parameters(query), let received = parameters["state"],
            ConstantTime.equal(received, state)
        else { return .wrongState }
        return .accept
    }
}

// The system calls, under names that do not clash with this file's methods.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
/// `send` that never raises `SIGPIPE` (Linux: `MSG_NOSIGNAL`; Apple platforms: the socket has `SO_NOSIGPIPE`).
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        send(descriptor, bytes, count, 0)
    #else
        send(descriptor, bytes, count, 0)
    #endif
}
private func systemSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 { socket(family, type, proto) }
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { listen(descriptor, backlog) }
private func systemPoll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: UInt, _ timeout: Int32) -> Int32 {
    #if canImport(Darwin)
        poll(descriptors, UInt32(count), timeout)
    #else
        poll(descriptors, nfds_t(count), timeout)
    #endif
}
