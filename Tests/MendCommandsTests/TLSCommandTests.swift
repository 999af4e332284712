import Foundation
import MendLoopbackTLS
import MendTesting
import Testing

@Suite("mend against a server whose certificate is not trusted", .enabled(if: MendBinary.url != nil))
struct TLSCommandTests {
    @Test("graph against a self-signed server: exit 1, the certificate not trusted, the host and port, no library text")
    func selfSignedGraph() async throws {
        let identity = try TestCertificateAuthority.selfSigned(names: ["127.0.0.1"])
        try await LoopbackTLSServer.withServer(presenting: identity) { port in
            let run = try await MendBinary.run([
                "graph", "GET", "me", "--base-url", "https://127.0.0.1:\(port)", "--token", "t",
            ])
            #expect(run.status == 1, "\(run.stderr)")
            // Failed before: "error: MendError(transport/3 …): AsyncHTTPClient: handshakeFailed(NIOSSL.BoringSSLError.sslError(
            // [Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…/handshake.cc:…]))".
            #expect(run.stderr.contains("not trusted"), "\(run.stderr)")
            #expect(run.stderr.contains("127.0.0.1:\(port)"), "\(run.stderr)")
            #expect(run.stderr.contains("transport/3 secureConnectionFailed"), "\(run.stderr)")
            for word in ["NIOSSL", "BoringSSL", "handshake.cc", "/.build/"] {
                #expect(!run.stderr.contains(word), "\(word) in \(run.stderr)")
            }
        }
    }
}
