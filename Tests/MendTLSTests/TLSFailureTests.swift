import AsyncHTTPClient
import Foundation
import HTTPTypes
import MendCore
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLoopbackTLS
import NIOSSL
import Testing

/// A failed TLS handshake, as AsyncHTTPClientTransport says it: what is wrong with the certificate (or the handshake),
/// for which host and port, and what to do — never a library's type names or a path of the machine that built it.
@Suite("TLS failures in words (AsyncHTTPClient)")
struct TLSFailureTests {
    /// What the developer message and the error's description must never contain.
    static let forbidden = ["NIOSSL", "BoringSSL", ".swift", "/.build/", "checkouts", "handshakeFailed"]

    /// The failure of a GET to `https://127.0.0.1:<port>/me` through `client`.
    static func failure(
        port: Int, client: HTTPClient = AsyncHTTPClientTransport.sharedClient
    ) async throws -> MendError {
        let transport = AsyncHTTPClientTransport(client: client, defaultTimeout: .seconds(10))
        let request = HTTPRequest(method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/me")
        let error = try await #require(throws: MendError.self) {
            _ = try await transport.send(request, body: nil, timeout: nil)
        }
        #expect(error.code == .Transport.secureConnectionFailed, "\(error)")
        for text in [error.developerMessage, String(describing: error)] {
            for word in forbidden { #expect(!text.contains(word), "\(word) in \(text)") }
        }
        return error
    }

    /// A client that trusts `authority` (and nothing else), for the paths where the chain verifies.
    static func withClient<Result>(
        trusting authority: TestCertificateAuthority, _ body: (HTTPClient) async throws -> Result
    ) async throws -> Result {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([authority.certificate])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test("A self-signed certificate: not trusted, self-signed, the host and port, and what to do")
    func selfSigned() async throws {
        let identity = try TestCertificateAuthority.selfSigned(names: ["127.0.0.1"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let error = try await Self.failure(port: port)
            let message = error.developerMessage
            // Failed before: "AsyncHTTPClient: handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581
            // error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…/handshake.cc:…]))".
            #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
            #expect(message.contains("not trusted"), "\(message)")
            #expect(message.contains("self-signed"), "\(message)")
            #expect(message.contains("trust store"), "\(message)")
            #expect(!message.contains("expired") && !message.contains("issued for"), "\(message)")
        }
    }

    @Test("A certificate of an authority this machine does not trust: not trusted, no other finding")
    func privateAuthority() async throws {
        let identity = try TestCertificateAuthority().issue(names: ["127.0.0.1"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let message = try await Self.failure(port: port).developerMessage
            #expect(message.contains("not trusted"), "\(message)")
            #expect(message.contains("not signed by an authority this machine trusts"), "\(message)")
            #expect(!message.contains("it is self-signed"), "\(message)")
        }
    }

    @Test("An expired certificate: expired, with the date")
    func expired() async throws {
        let validity = Date(timeIntervalSince1970: 1_546_300_800)...Date(timeIntervalSince1970: 1_577_836_800)
        let identity = try TestCertificateAuthority().issue(names: ["127.0.0.1"], validity: validity)
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let message = try await Self.failure(port: port).developerMessage
            #expect(message.contains("expired on 2020-01-01"), "\(message)")
            #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
        }
    }

    @Test("A certificate not valid yet: not valid before, with the date")
    func notYetValid() async throws {
        let validity = Date(timeIntervalSince1970: 4_070_908_800)...Date(timeIntervalSince1970: 4_102_444_800)
        let identity = try TestCertificateAuthority().issue(names: ["127.0.0.1"], validity: validity)
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let message = try await Self.failure(port: port).developerMessage
            #expect(message.contains("not valid before 2099-01-01"), "\(message)")
        }
    }

    @Test("A certificate for other names (untrusted authority): names them, and the host asked for")
    func otherNamesUntrusted() async throws {
        let identity = try TestCertificateAuthority().issue(names: ["example.com", "www.example.com"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let message = try await Self.failure(port: port).developerMessage
            #expect(message.contains("issued for example.com, www.example.com, not 127.0.0.1"), "\(message)")
        }
    }

    @Test("A trusted chain for other names: names them, and says nothing of trust in the authority")
    func otherNamesTrusted() async throws {
        let authority = try TestCertificateAuthority()
        let identity = try authority.issue(names: ["example.com"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            try await Self.withClient(trusting: authority) { client in
                let message = try await Self.failure(port: port, client: client).developerMessage
                #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
                #expect(message.contains("issued for example.com, not 127.0.0.1"), "\(message)")
                #expect(!message.contains("not signed by an authority"), "\(message)")
            }
        }
    }

    @Test("The same trusted chain for the right host connects (the servers above fail for their certificate only)")
    func trustedConnects() async throws {
        let authority = try TestCertificateAuthority()
        let identity = try authority.issue(names: ["127.0.0.1"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            try await Self.withClient(trusting: authority) { client in
                let transport = AsyncHTTPClientTransport(client: client, defaultTimeout: .seconds(10))
                let request = HTTPRequest(method: .get, scheme: "https", authority: "127.0.0.1:\(port)", path: "/me")
                let (head, _) = try await transport.send(request, body: nil, timeout: nil)
                #expect(head.status.code == 200)
            }
        }
    }

    @Test("A server that does not speak TLS: said so, with the host and port")
    func plainServer() async throws {
        try await LoopbackTLSServer.withServer(presenting: nil) { port in
            let message = try await Self.failure(port: port).developerMessage
            #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
            #expect(message.contains("does not speak TLS"), "\(message)")
        }
    }
}
