public import Foundation

extension MendError {
    /// The concrete action that resolves an error, and its parameters.
    public struct Recovery: Sendable, Hashable, Codable, CustomStringConvertible {
        /// What to do.
        public var action: Action
        /// The permissions to request, when ``action`` is ``Action/requestPermissions``.
        public var permissions: [String]
        /// The earliest time a retry may be sent (from `Retry-After`, usage headers or backoff), if known.
        public var notBefore: Date?

        /// Creates a recovery.
        package init(action: Action, permissions: [String] = [], notBefore: Date? = nil) {
            self.action = action
            self.permissions = permissions
            self.notBefore = notBefore
        }

        /// A stable rendering, such as `requestPermissions(user_posts)` or `waitForRateLimit`.
        public var description: String {
            permissions.isEmpty ? action.rawValue : "\(action.rawValue)(\(permissions.joined(separator: ",")))"
        }

        /// A recovery action. An open set: modules and apps may add actions.
        public struct Action: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
            /// The action's stable name, as it appears in JSON (`"reauthenticate"`).
            public var rawValue: String
            /// Creates an action from its stable name.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// Nothing can be done: show the message.
            public static let none = Action(rawValue: "none")
            /// Retry the request, after a backoff delay.
            public static let retry = Action(rawValue: "retry")
            /// Wait until the rate limit resets (``Recovery/notBefore``), then retry.
            public static let waitForRateLimit = Action(rawValue: "waitForRateLimit")
            /// Log in again (or refresh the session), then replay the request.
            public static let reauthenticate = Action(rawValue: "reauthenticate")
            /// Ask the user for the missing permissions (``Recovery/permissions``), only when they act.
            public static let requestPermissions = Action(rawValue: "requestPermissions")
            /// The user must resolve something on the provider's website (a checkpoint, an unconfirmed account).
            public static let visitProvider = Action(rawValue: "visitProvider")
            /// Check the network connection, then retry.
            public static let checkNetwork = Action(rawValue: "checkNetwork")
            /// The request itself is wrong: change its parameters or content.
            public static let changeRequest = Action(rawValue: "changeRequest")
            /// The request asks for too much at once: send it again asking for less — a smaller `limit`, fewer
            /// `fields`. The same request sent again fails the same way, so it is never retried unchanged
            /// (Graph's code 1 "Please reduce the amount of data you're asking for"; a Graph client's paging does
            /// it by itself).
            public static let reduceRequestSize = Action(rawValue: "reduceRequestSize")
            /// The resource changed elsewhere: reload it and apply the change again.
            public static let reloadAndRetry = Action(rawValue: "reloadAndRetry")
            /// The app's setup is wrong (a capability, an API key, a configuration): the developer must fix it.
            public static let fixConfiguration = Action(rawValue: "fixConfiguration")
            /// Contact support, quoting the reference id.
            public static let contactSupport = Action(rawValue: "contactSupport")

            /// The actions that the standard catalog uses, in display order.
            public static let known: [Action] = [
                .none, .retry, .waitForRateLimit, .reauthenticate, .requestPermissions, .visitProvider,
                .checkNetwork, .changeRequest, .reduceRequestSize, .reloadAndRetry, .fixConfiguration, .contactSupport,
            ]

            /// The action's stable name.
            public var description: String { rawValue }
        }
    }

    /// Recovery text that a provider's error configuration supplied for a code, already localized by the provider.
    package struct ServerRecoveryText: Sendable, Hashable, Codable {
        /// The recovery suggestion (`recovery_message`).
        package var suggestion: String?
        /// The option labels (`recovery_options`), the last one cancelling.
        package var options: [String]

        /// Creates server-provided recovery text.
        package init(suggestion: String?, options: [String]) {
            self.suggestion = suggestion
            self.options = options
        }
    }
}
