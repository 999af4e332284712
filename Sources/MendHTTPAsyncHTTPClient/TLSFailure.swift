import Foundation
import MendCore
import MendHTTP
import NIOCore
import NIOPosix
import NIOSSL

/// A failed TLS handshake, read for what a developer needs: what was wrong (the certificate, or the handshake), with
/// which server, and what to do — in words, never in SwiftNIO SSL's type names or BoringSSL's file paths.
///
/// BoringSSL says only `CERTIFICATE_VERIFY_FAILED` when a certificate does not verify, not why; the transport then
/// reads the certificate over one more connection (``ServerCertificate/read(from:timeout:)``) and says what it finds.
enum TLSFailure: Equatable {
    /// The server's certificate chain did not verify: why is in the certificate itself.
    case certificateNotVerified
    /// The chain verified, but the certificate is issued for other names than the host connected to.
    case otherHost
    /// The handshake did not get as far as a certificate; the words say why.
    case refused(String)
    /// Any other TLS failure, with BoringSSL's reason name (`NO_SHARED_CIPHER`) when there is one.
    case other(reason: String?)

    /// Reads `error`; `nil` when it is not a TLS failure.
    init?(_ error: any Error) {
        if let error = error as? NIOSSLExtraError {
            let otherHost = error == .failedToValidateHostname || error == .serverHostnameImpossibleToMatch
            self = otherHost ? .otherHost : .other(reason: nil)
        } else if let error = error as? BoringSSLError {
            self.init(reasons: Self.reasons(error))
        } else if let error = error as? NIOSSLError {
            switch error {
            case .handshakeFailed(let error): self.init(reasons: Self.reasons(error))
            case .uncleanShutdown: self = .refused("the server closed the connection during the handshake")
            default: self = .other(reason: nil)
            }
        } else if error is NIOSSLCloseTimedOutError {
            self = .other(reason: nil)
        } else {
            return nil
        }
    }

    /// The failure that BoringSSL's reason names (`CERTIFICATE_VERIFY_FAILED`, `WRONG_VERSION_NUMBER`, …) say.
    init(reasons: [String]) {
        let notTLS: Set = ["WRONG_VERSION_NUMBER", "HTTP_REQUEST", "HTTPS_PROXY_REQUEST", "PACKET_LENGTH_TOO_LONG"]
        let noVersion: Set = ["UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION", "NO_SUPPORTED_VERSIONS_ENABLED"]
        if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
            self = .certificateNotVerified
        } else if reasons.contains("EOF") {
            self = .refused("the server closed the connection during the handshake")
        } else if reasons.contains(where: notTLS.contains) {
            self = .refused("the server does not speak TLS on that port (a plain-HTTP server is reached with http://)")
        } else if reasons.contains(where: noVersion.contains) {
            self = .refused("the server and this client have no TLS protocol version in common")
        } else if let alert = reasons.first(where: { $0.hasPrefix("SSLV3_ALERT_") || $0.hasPrefix("TLSV1_ALERT_") }) {
            let words = alert.split(separator: "_").dropFirst(2).joined(separator: " ").lowercased()
            self = .refused("the server ended the handshake with the alert “\(words)”")
        } else {
            self = .other(reason: reasons.last)
        }
    }

    /// BoringSSL's reason names in `error` (`CERTIFICATE_VERIFY_FAILED`), `EOF` for an end of the connection.
    static func reasons(_ error: BoringSSLError) -> [String] {
        switch error {
        case .sslError(let stack), .unknownError(let stack), .invalidSNIName(let stack), .failedToSetALPN(let stack):
            return stack.compactMap { entry in
                if entry == .eofDuringHandshake { return "EOF" }
                // `Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…:320`
                let text = String(describing: entry)
                guard let start = text.range(of: " error:") else { return nil }
                let end = text.range(of: " at ", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
                let name = text[start.upperBound..<end].split(separator: ":").last ?? ""
                let isName =
                    !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
                return isName ? String(name) : nil
            }
        case .zeroReturn, .syscallError:
            return ["EOF"]
        default:
            return []
        }
    }

    /// Whether the certificate says more than the error: the transport then reads it (one more connection).
    var needsCertificate: Bool { self == .certificateNotVerified || self == .otherHost }

    /// The developer message for this failure of a connection to `server` (`nil`: unknown), with what `certificate`
    /// says when it was read. No secret is in it: host names, dates and BoringSSL's reason names only.
    func message(server: TLSServer?, certificate: ServerCertificate?) -> String {
        let name = server?.description ?? "the server"
        switch self {
        case .certificateNotVerified:
            guard let certificate, let server else {
                return "The certificate of \(name) is not trusted (the certificate could not be read for details). "
                    + Self.trustAdvice
            }
            let findings = certificate.findings(host: server.host, chainVerified: false, now: Date())
            return "The certificate of \(name) is not trusted: \(findings.words.joined(separator: "; ")). "
                + findings.advice.joined(separator: " ")
        case .otherHost:
            let findings = server.flatMap { certificate?.findings(host: $0.host, chainVerified: true, now: Date()) }
            guard let findings, !findings.words.isEmpty else {
                return "The certificate of \(name) is issued for other names than \(server?.host ?? "its host") "
                    + "(the certificate could not be read for details). Use a URL with a name the certificate is issued "
                    + "for, or give the server a certificate for its host."
            }
            return "The certificate of \(name) is for another host: \(findings.words.joined(separator: "; ")). "
                + findings.advice.joined(separator: " ")
        case .refused(let words):
            return "The TLS handshake with \(name) failed: \(words)."
        case .other(let reason?):
            return "The TLS handshake with \(name) failed (\(reason))."
        case .other(nil):
            return "The TLS handshake with \(name) failed."
        }
    }

    /// The error for this failure: `secureConnectionFailed`, the words of ``message(server:certificate:)``, and
    /// `error` as the underlying error (its own text, for code and logs that want it).
    func mendError(server: TLSServer?, certificate: ServerCertificate?, underlying error: any Error) -> MendError {
        var mendError = MendError(
            code: .Transport.secureConnectionFailed,
            developerMessage: message(server: server, certificate: certificate),
            catalog: .core)
        mendError.underlying = UnexpectedFailure(description: String(describing: error))
        return mendError
    }

    /// What to do about a certificate this machine does not trust.
    static let trustAdvice =
        "If the server is yours, add its certificate authority (or its self-signed certificate) to this machine's "
        + "trust store, or give it a certificate from a public authority; otherwise check the URL."
}

/// The host and port a TLS connection was made to.
struct TLSServer: CustomStringConvertible {
    /// The host name or IP address, without brackets (`::1`).
    var host: String
    /// The port (the scheme's when the URL has none).
    var port: Int

    /// The server of `authority` (`example.com`, `127.0.0.1:8443`, `[::1]:8443`), with the port of `scheme` when it
    /// has none.
    init(scheme: String, authority: String) {
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        var port: Int?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            port = rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            port = Int(host[host.index(after: colon)...])
            host = host[..<colon]
        }
        self.host = String(host)
        self.port = port ?? (scheme.lowercased() == "http" ? 80 : 443)
    }

    /// The server of `target` (`https://127.0.0.1:8443`), as ``AsyncHTTPClientTransport/map(_:target:)`` gets it.
    init?(target: String) {
        guard let separator = target.range(of: "://") else { return nil }
        self.init(scheme: String(target[..<separator.lowerBound]), authority: String(target[separator.upperBound...]))
    }

    /// `127.0.0.1:8443`, `[::1]:443`.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the host is an IP address (no name to send in SNI).
    var isIPAddress: Bool {
        host.contains(":")
            || (host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }
}

/// What a server's certificate says about itself: its validity, the names it is issued for, whether it signed
/// itself. Read from the leaf that the server presents.
struct ServerCertificate: Sendable {
    /// The start of its validity.
    var notValidBefore: Date
    /// The end of its validity.
    var notValidAfter: Date
    /// Its DNS names and IP addresses (subject alternative names; the common name when it has none).
    var names: [String]
    /// Its issuer is its subject: no authority signed it.
    var isSelfSigned: Bool

    init(_ certificate: NIOSSLCertificate) {
        notValidBefore = Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore))
        notValidAfter = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
        names = certificate._subjectAlternativeNames().compactMap { name in
            switch name.nameType {
            case .dnsName: String(decoding: name.contents, as: UTF8.self)
            case .ipAddress: try? SocketAddress(packedIPAddress: ByteBuffer(bytes: name.contents), port: 0).ipAddress
            default: nil
            }
        }
        let subject = certificate.subjectName
        if names.isEmpty, let commonName = subject.last(where: { $0.type == .commonName }) {
            names = [commonName.value]
        }
        isSelfSigned = !subject.isEmpty && subject == certificate.issuerName
    }

    /// What is wrong with this certificate for `host` at `now`, each in words (`it expired on 2020-01-01`), and what
    /// to do about each. `chainVerified`: the chain was trusted (only the names can be wrong); otherwise, when
    /// nothing else explains the failure, the authority is not trusted.
    func findings(host: String, chainVerified: Bool, now: Date) -> (words: [String], advice: [String]) {
        var words: [String] = []
        var advice: [String] = []
        let day = Date.ISO8601FormatStyle().year().month().day()
        if now > notValidAfter { words.append("it expired on \(notValidAfter.formatted(day))") }
        if now < notValidBefore { words.append("it is not valid before \(notValidBefore.formatted(day))") }
        if !words.isEmpty { advice.append("The server needs a renewed certificate, or this machine's clock is wrong.") }
        if !names.contains(where: { Self.name($0, matches: host) }) {
            let shown = names.prefix(5).joined(separator: ", ")
            let more = names.count > 5 ? " and \(names.count - 5) more" : ""
            words.append(names.isEmpty ? "it names no host" : "it is issued for \(shown)\(more), not \(host)")
            advice.append(
                "Use a URL with a name the certificate is issued for, or give the server a certificate for \(host).")
        }
        if !chainVerified && isSelfSigned {
            words.append("it is self-signed (no authority this machine trusts signed it)")
            advice.append(TLSFailure.trustAdvice)
        } else if !chainVerified && words.isEmpty {
            words.append(
                "it is not signed by an authority this machine trusts (a private certificate authority, or the server "
                    + "does not send its intermediate certificates)")
            advice.append(TLSFailure.trustAdvice)
        }
        return (words, advice)
    }

    /// Whether the certificate name `name` (`example.com`, `*.example.com`, `127.0.0.1`) covers `host`.
    static func name(_ name: String, matches host: String) -> Bool {
        let name = name.lowercased()
        let host = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        guard name.hasPrefix("*.") else { return name == host }
        guard let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == name.dropFirst()
    }

    /// Reads the certificate `server` presents, over one TLS connection that checks nothing and ends at the
    /// certificate (this client refuses it: no request is sent); `nil` when none was read within `timeout`.
    static func read(from server: TLSServer, timeout: TimeAmount = .seconds(5)) async -> ServerCertificate? {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let read = loop.makePromise(of: ServerCertificate?.self)
        let deadline = loop.scheduleTask(in: timeout) { read.succeed(nil) }
        var channel: (any Channel)?
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            // Any verification but `.none`, so that the callback below runs: it replaces BoringSSL's.
            configuration.certificateVerification = .noHostnameVerification
            let context = try NIOSSLContext(configuration: configuration)
            let serverName = server.isIPAddress ? nil : server.host
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let refuse: NIOSSLCustomVerificationCallback = { chain, verdict in
                            read.succeed(chain.first.map(ServerCertificate.init))
                            verdict.succeed(.failed)
                        }
                        let handler = try NIOSSLClientHandler(
                            context: context, serverHostname: serverName, customVerificationCallback: refuse)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .connect(host: server.host, port: server.port).get()
            channel?.closeFuture.whenComplete { _ in read.succeed(nil) }
        } catch {
            read.succeed(nil)
        }
        let certificate = try? await read.futureResult.get()
        deadline.cancel()
        channel?.close(promise: nil)
        return certificate ?? nil
    }
}
