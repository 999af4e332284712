import Foundation

/// A device login waiting for its user: the code the device polls with, the code the user enters, and the answer.
struct DeviceAuthorization: Sendable, Hashable {
    /// What the user answered on the device page (or the control API did).
    enum Answer: Sendable, Hashable {
        /// Not yet.
        case pending
        /// Approved, as `userID`, with these scopes granted.
        case approved(userID: String, granted: [String], denied: [String])
        /// Declined.
        case declined
        /// Approved and already turned into a token: the code cannot be used again.
        case used
    }

    /// The long code the device polls with (`code`, RFC 8628 `device_code`).
    var deviceCode: String
    /// The short code the user enters (`user_code`).
    var userCode: String
    var appID: String
    var scopes: [String]
    var expiresAt: Date
    /// The interval the device must keep between polls, in seconds; "slow down" adds 5.
    var interval: Int
    var lastPoll: Date?
    var answer: Answer = .pending
    /// Which wire the login was started on: the provider's (`device/login`) or RFC 8628 (an issuer's).
    var isRFC8628: Bool
}

/// Why a device poll did not give a token, in terms both wires share (RFC 8628 §3.5 and the provider's subcodes).
enum DevicePollRefusal: Error, Sendable, Hashable {
    case authorizationPending
    case slowDown
    case accessDenied
    case expiredToken
    case invalidCode

    /// The provider's error (`code`, `error_subcode`, message, user title and message).
    var graphFailure: GraphFailure {
        switch self {
        case .authorizationPending:
            GraphFailure(
                code: 31, subcode: 1_349_174, message: "This request requires the user to take a pending action",
                userTitle: "Device Login Authorization Pending",
                userMessage: "User has not yet authorized your application. Continue polling.")
        case .slowDown:
            GraphFailure(
                code: 17, subcode: 1_349_172, message: "User request limit reached",
                userTitle: "OAuth Device Excessive Polling",
                userMessage: "Your device is polling too frequently. Space your requests with a minimum interval of "
                    + "5 seconds.", isTransient: true)
        case .accessDenied:
            GraphFailure(
                code: 31, subcode: 1_349_173, message: "The user declined the device login",
                userTitle: "Device Login Declined", userMessage: "The person declined to log in on this device.")
        case .expiredToken:
            GraphFailure(
                code: 463, subcode: 1_349_152, message: "The session has expired",
                userTitle: "Activation Code Expired",
                userMessage: "The code you entered has expired. Please go back to your device for a new code and "
                    + "try again.")
        case .invalidCode:
            GraphFailure(code: 100, message: "(#100) The code is not a valid device login code.")
        }
    }

    /// The RFC 8628 `error` value.
    var oauthError: String {
        switch self {
        case .authorizationPending: "authorization_pending"
        case .slowDown: "slow_down"
        case .accessDenied: "access_denied"
        case .expiredToken: "expired_token"
        case .invalidCode: "invalid_grant"
        }
    }
}
