public import Foundation
public import HTTPTypes
import Logging
public import MendCore

extension APIClient {
    /// How a client reads responses: what decodes and classifies errors, how large a body may be, and where the
    /// reference id is. Retries, re-authentication, rate limits and logging are the client's steps
    /// (`.standard(credentialProvider:…)`).
    public struct Configuration: Sendable {
        /// The decoder that turns responses into errors (requests may override it).
        package var errorDecoder: any ErrorDecoder
        /// The catalog that classifies errors: `ErrorCatalog.core` by default, with the error decoder's own spaces
        /// (``ErrorDecoder/errorSpaces``) added when it lacks them.
        package var catalog: ErrorCatalog
        /// Responses larger than this are refused with `responseTooLarge`, without reading further.
        package var maximumResponseBodySize: Int
        /// The header that carries the server's request id (`X-Request-Id`).
        package var requestIDHeader: HTTPField.Name
        /// The clock every wait and deadline of the client's requests runs on; replaceable in tests.
        package var clock: PipelineClock
        /// Who watches the client's requests (tracing, metrics); `nil`: nobody, at no cost.
        package var observer: (any PipelineObserver)?
        /// Whether the client talks to a third party (an identity provider, the Graph API) rather than the app's own
        /// backend: its observer sends it no trace context unless told to.
        package var isThirdParty: Bool

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - errorDecoder: The decoder that turns responses into errors (requests may override it).
        ///   - catalog: The catalog that classifies errors; the error decoder's own spaces are added when missing.
        ///   - maximumResponseBodySize: Responses larger than this are refused with `responseTooLarge`.
        ///   - requestIDHeader: The header that carries the server's request id.
        ///   - clock: The clock every wait and deadline runs on.
        ///   - observer: Who watches the client's requests: by default the observer set with
        ///     ``APIClient/bootstrapObserver(_:)`` (none unless set).
        ///   - isThirdParty: Whether the client talks to a third party rather than the app's own backend: an
        ///     observer sends a third party no trace context unless told to.
        public init(
            errorDecoder: any ErrorDecoder = HTTPStatusErrorDecoder(),
            catalog: ErrorCatalog = .core,
            maximumResponseBodySize: Int = 10 << 20,
            requestIDHeader: HTTPField.Name = .requestID,
            clock: PipelineClock = .system,
            observer: (any PipelineObserver)? = APIClient.bootstrappedObserver,
            isThirdParty: Bool = false
        ) {
            self.errorDecoder = errorDecoder
            self.catalog = catalog.addingMissing(errorDecoder.errorSpaces)
            self.maximumResponseBodySize = maximumResponseBodySize
            self.requestIDHeader = requestIDHeader
            self.clock = clock
            self.observer = observer
            self.isThirdParty = isThirdParty
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the request id that Mend's services and many APIs answer with, and Mend's clients read as the
    /// reference id.
    public static let requestID = HTTPField.Name("X-Request-Id")!
}
