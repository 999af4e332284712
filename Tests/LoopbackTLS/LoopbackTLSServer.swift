import Crypto
public import Foundation
import NIOCore
import NIOPosix
public import NIOSSL
import SwiftASN1
import X509

/// A certificate chain and its private key, as a TLS server presents them.
public struct TLSIdentity: Sendable {
    /// The leaf first, then any intermediates.
    public var chain: [NIOSSLCertificate]
    /// The leaf's private key.
    public var key: NIOSSLPrivateKey
}

/// A certificate authority made at run time (P-256), which no machine trusts unless a test says so.
public struct TestCertificateAuthority: Sendable {
    /// The authority's own (self-signed) certificate: what a client that trusts it puts in its trust roots.
    public let certificate: NIOSSLCertificate
    private let key: P256.Signing.PrivateKey
    private let name: DistinguishedName

    /// Makes a new authority named `name`.
    public init(name: String = "Mend Test Authority") throws {
        key = P256.Signing.PrivateKey()
        self.name = try DistinguishedName { CommonName(name) }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true))
        }
        certificate = try Self.certificate(
            subject: self.name, key: key, issuer: self.name, issuerKey: key, extensions: extensions,
            validity: Date(timeIntervalSinceNow: -3600)...Date(timeIntervalSinceNow: 86400))
    }

    /// A leaf for `names` (DNS names, or IPv4 addresses such as `127.0.0.1`), valid over `validity`, signed by this
    /// authority.
    public func issue(
        names: [String],
        validity: ClosedRange<Date> = Date(timeIntervalSinceNow: -3600)...Date(timeIntervalSinceNow: 86400)
    ) throws -> TLSIdentity {
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Self.certificate(
            subject: DistinguishedName { CommonName(names.first ?? "leaf") }, key: leafKey, issuer: name,
            issuerKey: key, extensions: Self.leafExtensions(names), validity: validity)
        return TLSIdentity(chain: [leaf], key: try Self.nioKey(leafKey))
    }

    /// A self-signed leaf for `names`: no authority signed it.
    public static func selfSigned(names: [String]) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(names.first ?? "leaf") }
        let leaf = try certificate(
            subject: subject, key: key, issuer: subject, issuerKey: key, extensions: leafExtensions(names),
            validity: Date(timeIntervalSinceNow: -3600)...Date(timeIntervalSinceNow: 86400))
        return TLSIdentity(chain: [leaf], key: try nioKey(key))
    }

    private static func leafExtensions(_ names: [String]) throws -> Certificate.Extensions {
        let general = names.map { name -> GeneralName in
            let parts = name.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? .ipAddress(ASN1OctetString(contentBytes: ArraySlice(parts))) : .dnsName(name)
        }
        return try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            SubjectAlternativeNames(general)
        }
    }

    private static func certificate(
        subject: DistinguishedName, key: P256.Signing.PrivateKey, issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey, extensions: Certificate.Extensions, validity: ClosedRange<Date>
    ) throws -> NIOSSLCertificate {
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuerKey))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }

    private static func nioKey(_ key: P256.Signing.PrivateKey) throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }
}

/// A server on 127.0.0.1 (a port the system picks) for the tests of TLS failures: it presents a ``TLSIdentity`` and
/// answers any request with `200 {}`, or, without one, answers whatever it is sent with plain-HTTP bytes and closes,
/// as a server that does not speak TLS does.
public enum LoopbackTLSServer {
    /// Runs `body` with the port of a server presenting `identity` (`nil`: a plain-HTTP server), then stops it.
    public static func withServer<Result>(
        presenting identity: TLSIdentity?, _ body: (_ port: Int) async throws -> Result
    ) async throws -> Result {
        let context = try identity.map { identity in
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: identity.chain.map { .certificate($0) }, privateKey: .privateKey(identity.key)))
        }
        let answer =
            context == nil
            ? "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            : "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(AnswerOnce(answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        do {
            let result = try await body(channel.localAddress?.port ?? 0)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// Writes its answer at the first bytes it reads, then closes the connection.
private final class AnswerOnce: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let answer: String
    private var answered = false

    init(_ answer: String) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
