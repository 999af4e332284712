public import Foundation
public import HTTPTypes
public import MendCore

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
/// - The `deadline` bounds the whole exchange, body included; passing it throws `Transport.timedOut`.
/// - Any HTTP status is a response, not an error.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response and its body.
    func send(
        _ request: HTTPRequest, body: HTTPBody?, deadline: ContinuousClock.Instant?
    ) async throws -> (
        HTTPResponse, HTTPBody
    )
}

extension HTTPTransport {
    /// The time left before `deadline`, or `defaultTimeout` without one: the one check that a request's deadline has
    /// not passed before it is sent, used by the pipeline and by every transport.
    ///
    /// - Throws: `transport/timedOut` when the deadline has passed: the request must not be sent.
    public func timeLeft(
        before deadline: ContinuousClock.Instant?, default defaultTimeout: Duration
    ) throws(MendError) -> Duration {
        let left = deadline.map { ContinuousClock.now.duration(to: $0) } ?? defaultTimeout
        guard left > .zero else {
            throw MendError(
                code: .Transport.timedOut, developerMessage: "The request's deadline passed before it was sent.",
                catalog: .core)
        }
        return left
    }
}
