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

        /// Creates a configuration.
        public init(
            errorDecoder: any ErrorDecoder = HTTPStatusErrorDecoder(),
            catalog: ErrorCatalog = .core,
            maximumResponseBodySize: Int = 10 << 20,
            requestIDHeader: HTTPField.Name = .requestID,
            clock: PipelineClock = .system
        ) {
            self.errorDecoder = errorDecoder
            self.catalog = catalog.addingMissing(errorDecoder.errorSpaces)
            self.maximumResponseBodySize = maximumResponseBodySize
            self.requestIDHeader = requestIDHeader
            self.clock = clock
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the request id that Mend's services and many APIs answer with, and Mend's clients read as the
    /// reference id.
    public static let requestID = HTTPField.Name("X-Request-Id")!
}
