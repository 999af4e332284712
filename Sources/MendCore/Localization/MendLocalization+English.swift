// English: the source language. Every other table must have every key of this one (a test checks it).
// Rules for every language: no raw codes or numbers, no internals; say what happened and what the person can do.

extension MendLocalization {
    // swift-format-ignore
    static let english = Table(
        language: "en",
        messages: [
            .generic: Message(title: "Something Went Wrong", message: "Something went wrong. Please try again later."),
            .serviceUnavailable: Message(title: "Service Unavailable", message: "The service is temporarily unavailable. Please try again in a moment."),
            .rateLimited: Message(title: "Too Many Requests", message: "There have been too many requests in a short time. Please wait a little, then try again."),
            .temporarilyBlocked: Message(title: "Temporarily Blocked", message: "This action is temporarily blocked. Please try again later."),
            .sessionExpired: Message(title: "Session Expired", message: "Your session has expired. Please log in again."),
            .appRemoved: Message(title: "App Disconnected", message: "This app is no longer connected to your account. Please log in again to reconnect it."),
            .passwordChanged: Message(title: "Password Changed", message: "Your password has changed since you last logged in. Please log in again."),
            .accountCheckpointed: Message(title: "Account Needs Attention", message: "Your account needs attention. Please log in on the provider's website to continue."),
            .accountUnconfirmed: Message(title: "Account Not Confirmed", message: "Your account isn't confirmed yet. Please confirm it on the provider's website, then try again."),
            .permissionMissing: Message(title: "Permission Needed", message: "This action needs a permission that you haven't granted."),
            .accessDenied: Message(title: "No Access", message: "You don't have access to this."),
            .notFound: Message(title: "Not Found", message: "What you're looking for couldn't be found. It may have been removed."),
            .duplicatePost: Message(title: "Already Posted", message: "You've already posted this. Change it a little and try again."),
            .linkNotReadable: Message(title: "Link Unavailable", message: "The link couldn't be read. Please check it and try again."),
            .appMisconfigured: Message(title: "App Not Set Up", message: "This app isn't set up correctly. Please contact support."),
            .loginFailed: Message(title: "Login Failed", message: "The login couldn't be completed. Please try again."),
            .userMismatch: Message(title: "Different Account", message: "You logged in with a different account. Please log in with the account you used before."),
            .systemAccountUnavailable: Message(title: "Account Unavailable", message: "The account on this device can't be used for logging in. Check your settings, then try again."),
            .sessionRenewal: Message(title: "Reconnecting", message: "Your session is being renewed. Please try again."),
            .signedOut: Message(title: "Signed Out", message: "You were signed out. Please log in again."),
            .signedOutForSecurity: Message(title: "Signed Out for Your Security", message: "For your security, you were signed out on all your devices. Please log in again."),
            .accountDeleted: Message(title: "Account Deleted", message: "This account no longer exists. Log in to create a new one."),
            .notLoggedIn: Message(title: "Not Logged In", message: "Please log in to continue."),
            .paymentRequired: Message(title: "Subscription Needed", message: "The subscription for this service is invalid or has expired."),
            .updateConflict: Message(title: "Changed Elsewhere", message: "This item was changed somewhere else. Reload it and make your change again."),
            .duplicateObject: Message(title: "Already Exists", message: "This item already exists."),
            .invalidInput: Message(title: "Check Your Input", message: "Some of the information isn't valid. Please check it and try again."),
            .partialContent: Message(title: "Some Content Missing", message: "Some of the content couldn't be loaded."),
            .offline: Message(title: "You're Offline", message: "You appear to be offline. Check your internet connection and try again."),
            .timedOut: Message(title: "Request Timed Out", message: "The server took too long to respond. Please try again."),
            .secureConnectionFailed: Message(title: "Secure Connection Failed", message: "A secure connection to the server couldn't be established."),
            .serverUnreachable: Message(title: "Server Unreachable", message: "The server couldn't be reached. Check your internet connection and try again."),
            .connectionLost: Message(title: "Connection Lost", message: "The connection was lost. Please try again."),
            .cancelled: Message(title: "Cancelled", message: "The request was cancelled."),
            .unreadableResponse: Message(title: "Unexpected Response", message: "The server sent a response that couldn't be read. Please try again."),
        ],
        recoveries: [
            .none: RecoveryText(suggestion: nil, options: ["OK"]),
            .retry: RecoveryText(suggestion: "Try again in a moment.", options: ["Try Again", "Cancel"]),
            .waitForRateLimit: RecoveryText(suggestion: "Wait a little, then try again.", options: ["OK"]),
            .reauthenticate: RecoveryText(suggestion: "Log in again to continue.", options: ["Log In", "Cancel"]),
            .requestPermissions: RecoveryText(suggestion: "Allow the permission to continue.", options: ["Allow", "Not Now"]),
            .visitProvider: RecoveryText(suggestion: "Log in on the provider's website to resolve this.", options: ["OK"]),
            .checkNetwork: RecoveryText(suggestion: "Check your internet connection, then try again.", options: ["Try Again", "Cancel"]),
            .changeRequest: RecoveryText(suggestion: "Check what you entered and try again.", options: ["OK"]),
            .reloadAndRetry: RecoveryText(suggestion: "Reload, then make your change again.", options: ["Reload", "Cancel"]),
            .fixConfiguration: RecoveryText(suggestion: "Please contact support.", options: ["OK"]),
            .contactSupport: RecoveryText(suggestion: "If this keeps happening, contact support and quote the reference.", options: ["OK"]),
        ],
        labels: [
            .reference: "Reference",
        ]
    )
}
