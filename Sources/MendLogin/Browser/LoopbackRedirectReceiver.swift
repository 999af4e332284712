public import Foundation
public import MendCore
import Synchronization

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
public final class LoopbackRedirectReceiver: Sendable {
    /// Which loopback address to listen on.
    public enum Address: Sendable {
        /// `127.0.0.1`.
        case ipv4
        /// `[::1]`.
        case ipv6
    }

    /// The redirect URI to register with the authorization request: `http://127.0.0.1:<port>/<path>`.
    public let redirectURI: URL
    /// The path the redirect must arrive at.
    public let path: String
    private let listener: Int32
    private let closed = Atomic<Bool>(false)

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - path: The redirect's path (`/callback`).
    ///   - address: The loopback address.
    public init(path: String = "/callback", address: Address = .ipv4) throws(MendError) {
        self.path = path.hasPrefix("/") ? path : "/" + path
        let (socket, port) = try Self.listen(address)
        self.listener = socket
        let host = address == .ipv4 ? "127.0.0.1" : "[::1]"
        self.redirectURI = URL(string: "http://\(host):\(port)\(self.path)")!
    }

    deinit { close() }

    /// Stops listening (idempotent).
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = systemClose(listener)
    }

    /// Waits for the redirect that carries `state`, and returns its full URL as received.
    ///
    /// - Throws: `transport/timedOut` when nothing valid arrived within `timeout`; `CancellationError` when the task
    ///   is cancelled. Either way the receiver is closed.
    public func waitForRedirect(state: String, timeout: Duration = .seconds(300)) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let result: Result<String, MendError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { [self] in
                    continuation.resume(returning: self.acceptLoop(state: state, deadline: deadline))
                }
                thread.name = "mend.loopback-receiver"
                thread.start()
            }
        } onCancel: {
            self.close()
        }
        close()
        try Task.checkCancellation()
        return try result.get()
    }

    // MARK: The accept loop (a dedicated thread: blocking calls with poll timeouts, no runtime threads held).

    private func acceptLoop(state: String, deadline: ContinuousClock.Instant) -> Result<String, MendError> {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero, !closed.load(ordering: .acquiring) else {
                return .failure(
                    MendError(
                        code: .Transport.timedOut,
                        developerMessage: "No login redirect arrived at \(redirectURI.absoluteString) in time."))
            }
            guard Self.poll(listener, milliseconds: Self.milliseconds(remaining)) else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            defer { _ = systemClose(client) }
            guard let target = Self.readRequestTarget(client, deadline: deadline) else {
                Self.respond(client, status: "400 Bad Request", body: "Bad request.")
                continue
            }
            switch LoopbackRequestCheck.check(target: target, path: path, state: state) {
            case .accept:
                Self.respond(client, status: "200 OK", body: Self.successPage)
                let host = redirectURI.host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "127.0.0.1"
                return .success("http://\(host):\(redirectURI.port ?? 0)\(target)")
            case .wrongPath:
                Self.respond(client, status: "404 Not Found", body: "Not found.")
            case .wrongState:
                Self.respond(client, status: "400 Bad Request", body: "This is not the login this app started.")
            }
        }
    }

    static let successPage = """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Logged in</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>You can close this tab.</h1>
        <p>The app has received your login.</p></body></html>
        """

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Waits until `socket` is readable; `false` on timeout.
    private static func poll(_ socket: Int32, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return systemPoll(&descriptor, 1, min(milliseconds, 250)) > 0
    }

    /// Reads the request head (at most 16 KiB, within the deadline) and returns the request target of a `GET`.
    private static func readRequestTarget(_ client: Int32, deadline: ContinuousClock.Instant) -> String? {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var length = 0
        while length < buffer.count {
            let remaining = ContinuousClock.now.duration(
                to: min(deadline, ContinuousClock.now.advanced(by: .seconds(5))))
            guard remaining > .zero, poll(client, milliseconds: milliseconds(remaining)) else { return nil }
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress! + length, $0.count - length) }
            guard count > 0 else { return nil }
            length += count
            if let head = String(bytes: buffer[0..<length], encoding: .utf8),
                head.contains("\r\n\r\n") || head.contains("\n\n")
            {
                // "\r\n" is one Character in Swift: split on newlines, not on "\r".
                let line = (head.split(whereSeparator: \.isNewline).first ?? "").split(separator: " ")
                guard line.count == 3, line[0] == "GET", line[2].hasPrefix("HTTP/1.") else { return nil }
                return String(line[1])
            }
        }
        return nil
    }

    private static func respond(_ client: Int32, status: String, body: String) {
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { write(client, $0.baseAddress! + sent, $0.count - sent) }
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
        let descriptor = systemSocket(family, socketType, 0)
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
        guard bound == 0, systemListen(descriptor, 8) == 0 else {
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
        return (descriptor, Int(port))
    }

    private static func failure(_ call: String) -> MendError {
        MendError(
            code: .Transport.cannotConnect,
            developerMessage: "The loopback redirect receiver could not listen (\(call) failed, errno \(errno)).")
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
private func systemSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 { socket(family, type, proto) }
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { listen(descriptor, backlog) }
private func systemPoll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: UInt, _ timeout: Int32) -> Int32 {
    #if canImport(Darwin)
        poll(descriptors, UInt32(count), timeout)
    #else
        poll(descriptors, nfds_t(count), timeout)
    #endif
}
