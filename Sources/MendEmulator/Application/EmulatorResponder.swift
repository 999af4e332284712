import Foundation
public import Hummingbird
import MendHTTP
import NIOCore

/// The emulator's HTTP responder: turns a Hummingbird request into an ``EmulatorRequest``, lets the ``Emulator``
/// answer, and delivers the answer as faults demand (a delay, a dropped connection, a cut body).
public struct EmulatorResponder: HTTPResponder {
    /// The emulator that answers.
    public let emulator: Emulator

    /// Creates the responder.
    public init(emulator: Emulator) {
        self.emulator = emulator
    }

    /// Answers one request.
    public func respond(to request: Request, context: EmulatorRequestContext) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let authority = request.head.authority ?? emulator.configuration.host
        let emulatorRequest = EmulatorRequest(
            method: request.method, path: request.uri.path, rawQuery: request.uri.query ?? "",
            headers: request.headers, body: Data(buffer.readableBytesView), baseURL: "http://\(authority)")
        let answer = await emulator.handle(emulatorRequest)
        if let delay = answer.delay { try await emulator.clock.sleep(delay) }
        switch answer.delivery {
        case .normal:
            return Response(
                status: answer.status, headers: answer.headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        case .drop:
            try await context.channel.close()
            throw DroppedConnection()
        case .cutAfter(let bytes):
            let part = ByteBuffer(bytes: answer.body.prefix(bytes))
            let body = ResponseBody(contentLength: answer.body.count) { writer in
                try await writer.write(part)
                throw DroppedConnection()
            }
            return Response(status: answer.status, headers: answer.headers, body: body)
        }
    }
}

/// Thrown to make Hummingbird close a connection that a fault drops.
struct DroppedConnection: Error {}
