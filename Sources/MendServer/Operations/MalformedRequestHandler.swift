import HTTPTypes
import MendCore
import MendHTTP
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request SwiftNIO's parser refuses — a head over the server's limit (a 100 KB query value), a malformed
/// request line or header — in the Mend error shape, as every other failure is: Hummingbird's own answer to a parser
/// error is a bare 400 without a body or a content type.
///
/// In the channel pipeline after the HTTP codec (Hummingbird's `additionalChannelHandlers`): it takes the parser's
/// error before Hummingbird's connection handler sees it, writes the 400, and closes the connection (the parser
/// cannot go on after an error).
final class MalformedRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        var failure = MendError(
            code: .REST.badRequest, developerMessage: Self.message(for: parserError), catalog: .server)
        failure.referenceID = RequestIdentifier.make()
        let body = ByteBuffer(string: failure.wireBody(redactingMessages: false).jsonText())
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [
                .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
                .contentLength: String(body.readableBytes), .connection: "close",
                .requestID: failure.referenceID ?? "",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    /// What was wrong, in a developer's words (never the request's bytes: they may hold a token).
    static func message(for error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow:
            "The request's head (request line and header fields) is larger than the server reads: "
                + "send a shorter URL, or fewer or shorter header fields."
        case .invalidURL, .invalidHost, .invalidPort, .invalidPath, .invalidQueryString, .invalidFragment:
            "The request line's target is not a valid URL."
        case .invalidMethod: "The request's method is not valid."
        case .invalidVersion: "The request's HTTP version is not valid."
        case .invalidHeaderToken, .invalidConstant, .lfExpected, .invalidCharactersUsed:
            "A header field of the request is malformed."
        case .invalidContentLength, .unexpectedContentLength: "The request's Content-Length is not valid."
        case .invalidChunkSize: "The request's chunked body is malformed."
        default: "The request is not valid HTTP/1.1."
        }
    }
}
