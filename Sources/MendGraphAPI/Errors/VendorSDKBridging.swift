public import Foundation
public import MendCore

extension MendError {
    /// The vendor SDK's documented `userInfo` keys, so that code written against the vendor SDK's `NSError`s keeps
    /// working: read them from `vendorSDKUserInfo` or from the `NSError` that `vendorSDKNSError` returns.
    public enum VendorSDKUserInfoKey {
        /// The developer message (`FBSDKErrorDeveloperMessageKey`).
        public static let developerMessage = "com.facebook.sdk:FBSDKErrorDeveloperMessageKey"
        /// The localized user title (`FBSDKErrorLocalizedTitleKey`).
        public static let localizedTitle = "com.facebook.sdk:FBSDKErrorLocalizedTitleKey"
        /// The localized user message (`FBSDKErrorLocalizedDescriptionKey`).
        public static let localizedDescription = "com.facebook.sdk:FBSDKErrorLocalizedDescriptionKey"
        /// The category: 0 other, 1 transient, 2 recoverable (`FBSDKGraphRequestErrorKey`).
        public static let category = "com.facebook.sdk:FBSDKGraphRequestErrorKey"
        /// The Graph (or domain) code (`FBSDKGraphRequestErrorGraphErrorCodeKey`).
        public static let graphErrorCode = "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorCodeKey"
        /// The subcode (`FBSDKGraphRequestErrorGraphErrorSubcodeKey`).
        public static let graphErrorSubcode = "com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorSubcodeKey"
        /// The HTTP status (`FBSDKGraphRequestErrorHTTPStatusCodeKey`).
        public static let httpStatusCode = "com.facebook.sdk:FBSDKGraphRequestErrorHTTPStatusCodeKey"
        /// The parsed JSON response, redacted, as Foundation objects (`FBSDKGraphRequestErrorParsedJSONResponseKey`).
        public static let parsedJSONResponse = "com.facebook.sdk:FBSDKGraphRequestErrorParsedJSONResponseKey"
    }

    /// `errorUserInfo` plus the vendor SDK's keys (`VendorSDKUserInfoKey`), redacted like the rest.
    public var vendorSDKUserInfo: [String: Any] {
        let language = MendLocalization.preferredLanguage
        var info = errorUserInfo
        info[VendorSDKUserInfoKey.developerMessage] = Redactor.standard.redact(text: developerMessage)
        info[VendorSDKUserInfoKey.localizedTitle] = userTitle(locale: Locale(identifier: language))
        info[VendorSDKUserInfoKey.localizedDescription] = userMessage(locale: Locale(identifier: language))
        info[VendorSDKUserInfoKey.category] = Self.vendorNumber(of: category)
        info[VendorSDKUserInfoKey.graphErrorCode] = code.rawValue
        if let subcode { info[VendorSDKUserInfoKey.graphErrorSubcode] = subcode.rawValue }
        if let status = response?.status { info[VendorSDKUserInfoKey.httpStatusCode] = status }
        if let json = response?.json { info[VendorSDKUserInfoKey.parsedJSONResponse] = json.foundationObject }
        return info
    }

    /// The error as an `NSError` with the vendor SDK's keys as well as Mend's (domain `errorDomain`), for code
    /// migrating from the vendor SDK. `MendError(bridging:catalog:)` restores it.
    public var vendorSDKNSError: NSError {
        NSError(domain: Self.errorDomain, code: errorCode, userInfo: vendorSDKUserInfo)
    }

    /// The vendor SDK's numbering of categories in `userInfo`: other 0, transient 1, recoverable 2.
    static func vendorNumber(of category: Category) -> Int {
        switch category {
        case .other: 0
        case .transient: 1
        case .recoverable: 2
        }
    }
}
