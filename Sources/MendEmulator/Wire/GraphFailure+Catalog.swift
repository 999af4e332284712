import Foundation
import MendCore
import MendGraphAPI

extension GraphFailure {
    /// The provider's error for a catalog code (and subcode), with the provider's own wording where it is known and
    /// the catalog's summary otherwise.
    static func catalog(code: Int, subcode: Int?, message: String? = nil) -> GraphFailure {
        let known = knownMessages[Key(code: code, subcode: subcode)] ?? knownMessages[Key(code: code, subcode: nil)]
        let entry = ErrorCatalog.everySpace.entry(
            code: MendError.Code(.graph, code), subcode: subcode.map(MendError.Subcode.init(rawValue:)))
        let text = message ?? known?.message ?? "(#\(code)) \(entry.summary)"
        var failure = GraphFailure(
            code: code, subcode: subcode, message: text, type: known?.type ?? "OAuthException",
            userTitle: known?.userTitle, userMessage: known?.userMessage)
        if entry.category != .transient { failure.isTransient = false }
        return failure
    }

    struct Key: Hashable {
        var code: Int
        var subcode: Int?
    }

    struct Known {
        var message: String
        var type: String = "OAuthException"
        var userTitle: String? = nil
        var userMessage: String? = nil
    }

    static let validating = "Error validating access token: "

    // swift-format-ignore
    static let knownMessages: [Key: Known] = [
        Key(code: 1): Known(message: "An unknown error has occurred."),
        Key(code: 2): Known(message: "An unexpected error has occurred. Please retry your request later."),
        Key(code: 3): Known(message: "(#3) Application does not have the capability to make this API call."),
        Key(code: 4): Known(message: "(#4) Application request limit reached"),
        Key(code: 9): Known(message: "(#9) This request was temporarily throttled. Please retry later."),
        Key(code: 10): Known(message: "(#10) Application does not have permission for this action"),
        Key(code: 17): Known(message: "(#17) User request limit reached"),
        Key(code: 17, subcode: 2_446_079): Known(message: "(#17) User request limit reached"),
        Key(code: 32): Known(message: "(#32) Page request limit reached"),
        Key(code: 100): Known(message: "(#100) Invalid parameter"),
        Key(code: 100, subcode: 33): Known(message: "Unsupported get request. Object with ID 'unknown' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api", type: "GraphMethodException"),
        Key(code: 102): Known(message: "(#102) Session key invalid or no longer valid"),
        Key(code: 190): Known(message: "Invalid OAuth access token - Cannot parse access token"),
        Key(code: 190, subcode: 458): Known(message: validating + "The user has not authorized application."),
        Key(code: 190, subcode: 459): Known(message: validating + "You cannot access the app till you log in to www.facebook.com and follow the instructions given.", userTitle: "Log in to Facebook", userMessage: "Please log in at www.facebook.com and follow the instructions given there."),
        Key(code: 190, subcode: 460): Known(message: validating + "The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons."),
        Key(code: 190, subcode: 463): Known(message: validating + "Session has expired."),
        Key(code: 190, subcode: 464): Known(message: validating + "Sessions for the user are not allowed because the user is not a confirmed user.", userTitle: "Confirm your account", userMessage: "Please confirm your account at www.facebook.com before you continue."),
        Key(code: 190, subcode: 467): Known(message: validating + "The session is invalid because the user logged out."),
        Key(code: 190, subcode: 492): Known(message: validating + "The session is invalid because the user does not have a role on the Page."),
        Key(code: 200): Known(message: "(#200) Requires extended permission: publish_actions"),
        Key(code: 341): Known(message: "(#341) Application limit reached"),
        Key(code: 368): Known(message: "(#368) The action attempted has been deemed abusive or is otherwise disallowed", userTitle: "Temporarily Blocked", userMessage: "You can't do this right now. Please try again later."),
        Key(code: 506): Known(message: "(#506) Duplicate status message", userTitle: "Duplicate Status Message", userMessage: "This status update is identical to the last one you posted. Try posting something different, or delete your previous update."),
        Key(code: 613): Known(message: "(#613) Calls to this api have exceeded the rate limit."),
        Key(code: 1_609_005): Known(message: "(#1609005) Error Posting Link: The link could not be scraped."),
        Key(code: 80000): Known(message: "(#80000) There have been too many calls from this ad-account. Wait a bit and try again."),
        Key(code: 80001): Known(message: "(#80001) There have been too many calls to this Page account. Wait a bit and try again."),
        Key(code: 80002): Known(message: "(#80002) There have been too many calls to this Instagram account. Wait a bit and try again."),
        Key(code: 80003): Known(message: "(#80003) There have been too many calls for this custom audience. Wait a bit and try again."),
        Key(code: 80004): Known(message: "(#80004) There have been too many calls to this ad-account. Wait a bit and try again."),
        Key(code: 80005): Known(message: "(#80005) There have been too many leadgen api calls to this Page. Wait a bit and try again."),
        Key(code: 80006): Known(message: "(#80006) There have been too many messenger api calls to this Page. Wait a bit and try again."),
        Key(code: 80007): Known(message: "(#80007) There have been too many calls to this WhatsApp Business account. Wait a bit and try again."),
        Key(code: 80008): Known(message: "(#80008) There have been too many calls to this WhatsApp Business Management API. Wait a bit and try again."),
        Key(code: 80009): Known(message: "(#80009) There have been too many calls to this Catalog. Wait a bit and try again."),
        Key(code: 80014): Known(message: "(#80014) There have been too many catalog batch calls. Wait a bit and try again."),
    ]
}

extension GraphFailure.Key {
    init(code: Int) { self.init(code: code, subcode: nil) }
}
