public import Foundation
public import HTTPTypes

/// The Graph API's constants, in one place: its default address and version, and the headers that carry its trace
/// and request ids.
public enum GraphAPI {
    /// The API version Mend speaks by default.
    public static let defaultVersion = "v25.0"
    /// The provider's Graph API.
    public static let defaultURL = URL(string: "https://graph.facebook.com")!
    /// The header with the trace id to quote to support (`x-fb-trace-id`), when the body has no `fbtrace_id`.
    public static let traceIDHeader = HTTPField.Name("x-fb-trace-id")!
    /// The header with the request id (`x-fb-request-id`), the reference of last resort.
    public static let requestIDHeader = HTTPField.Name("x-fb-request-id")!
}
