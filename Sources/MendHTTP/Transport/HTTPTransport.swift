public import Foundation
public import HTTPTypes

/// The one seam between Mend's pipeline and the network.
///
/// A transport sends one request and returns the response head and body. It does no retrying, decoding or
/// classification: the pipeline does. Implementations: `AsyncHTTPClientTransport` (MendHTTPAsyncHTTPClient),
/// `URLSessionTransport` (MendHTTPURLSession), and `InMemoryTransport` (MendTesting).
///
/// Contract:
/// - A failure below HTTP throws a `MendError` of the `MendError.Domain.transport` domain
///   (`notConnected`, `timedOut`, `secureConnectionFailed`, `cannotFindHost`, `connectionLost`, `cannotConnect`, …).
/// - Cancelling the calling task throws `CancellationError`, never a `MendError`.
/// - The `timeout` bounds the whole exchange, body included (`nil`: the transport's default); passing it throws
///   `Transport.timedOut`. The pipeline checks the request's deadline before each try and passes the time left: a
///   transport does not check it again.
/// - Any HTTP status is a response, not an error.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` within `timeout` and returns the response and its body.
    func send(_ request: HTTPRequest, body: HTTPBody?, timeout: Duration?) async throws -> (HTTPResponse, HTTPBody)
}
