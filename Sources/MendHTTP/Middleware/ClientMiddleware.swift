import Foundation
import HTTPTypes
public import Logging
import MendCore

/// A step of the request pipeline: it sees each request on its way to the transport and each response or error on
/// the way back.
///
/// The client runs its own middleware in this order, outermost first: your middleware, authorization (attach the
/// credential; re-authenticate once and replay), the rate-limit gate (hold requests to a throttled key), retry
/// (backoff, budget, deadline), logging (one line per try), then the transport and the error decoder.
public protocol ClientMiddleware: Sendable {
    /// Handles `request`, calling `next` to continue down the pipeline (any number of times, or not at all).
    func intercept(
        _ request: APIRequest, context: PipelineContext,
        next: @Sendable (APIRequest) async throws -> APIResponse
    ) async throws -> APIResponse
}
