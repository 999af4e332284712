public import Foundation

extension MendError {
    /// The keys of ``errorUserInfo``. (MendGraphAPI adds the vendor SDK's documented keys, for code written against
    /// the vendor SDK's `NSError`s.)
    public enum UserInfoKey {
        /// The Mend domain's stable name (`"graph"`): check it, then the code.
        public static let domain = "dev.mend:domain"
        /// The catalog name (`"tokenExpired"`).
        public static let name = "dev.mend:name"
        /// The recovery action's stable name.
        public static let recovery = "dev.mend:recovery"
        /// The permissions the recovery requests, as `[String]`.
        public static let permissions = "dev.mend:permissions"
        /// The reference id (`fbtrace_id`, `X-Request-Id`, `referenceId`).
        public static let referenceID = "dev.mend:referenceID"
        /// The field-level messages, as `[String]`.
        public static let additionalMessages = "dev.mend:additionalMessages"
        /// The attempt count.
        public static let attempts = "dev.mend:attempts"
        /// The user-message key.
        public static let messageKey = "dev.mend:messageKey"
        /// The server's own user title, if any.
        public static let serverUserTitle = "dev.mend:serverUserTitle"
        /// The server's own user message, if any.
        public static let serverUserMessage = "dev.mend:serverUserMessage"

        /// The redacted developer message.
        public static let developerMessage = "dev.mend:developerMessage"
        /// The category's stable name (`"recoverable"`).
        public static let category = "dev.mend:category"
        /// The subcode, as `Int`.
        public static let subcode = "dev.mend:subcode"
        /// The HTTP status of the response, as `Int`.
        public static let httpStatus = "dev.mend:httpStatus"
        /// The parsed JSON response, redacted, as Foundation objects.
        public static let json = "dev.mend:json"
    }
}

extension MendError: CustomNSError {
    /// The `NSError` domain of every bridged Mend error. The Mend domain is under ``UserInfoKey/domain``.
    ///
    /// Swift bridges with one domain per type on every platform, so the Mend domain (login, graph, …) travels in
    /// `userInfo`; ``init(bridging:catalog:)`` restores it.
    public static let errorDomain = "dev.mend"

    /// The code within the Mend domain (302, 190, 409, …).
    public var errorCode: Int { code.rawValue }

    /// Every field, redacted, under Mend's keys, plus Foundation's localized keys.
    public var errorUserInfo: [String: Any] {
        let language = MendLocalization.preferredLanguage
        var info: [String: Any] = [
            UserInfoKey.domain: domain.rawValue,
            UserInfoKey.name: name,
            UserInfoKey.recovery: recovery.action.rawValue,
            UserInfoKey.attempts: attempts,
            UserInfoKey.messageKey: messageKey.rawValue,
            UserInfoKey.developerMessage: Redactor.standard.redact(text: developerMessage),
            UserInfoKey.category: category.rawValue,
            NSLocalizedDescriptionKey: userMessage(language: language),
            NSLocalizedFailureReasonErrorKey: userTitle(language: language),
            NSLocalizedRecoveryOptionsErrorKey: recoveryOptions(language: language),
        ]
        if let suggestion = recoverySuggestion(language: language) {
            info[NSLocalizedRecoverySuggestionErrorKey] = suggestion
        }
        if let subcode { info[UserInfoKey.subcode] = subcode.rawValue }
        if let status = response?.status { info[UserInfoKey.httpStatus] = status }
        if let json = response?.json { info[UserInfoKey.json] = json.foundationObject }
        if let referenceID { info[UserInfoKey.referenceID] = referenceID }
        if !additionalMessages.isEmpty {
            info[UserInfoKey.additionalMessages] = additionalMessages.map { Redactor.standard.redact(text: $0) }
        }
        if !recovery.permissions.isEmpty { info[UserInfoKey.permissions] = recovery.permissions }
        if let serverUserTitle { info[UserInfoKey.serverUserTitle] = serverUserTitle }
        if let serverUserMessage { info[UserInfoKey.serverUserMessage] = serverUserMessage }
        if let underlying { info[NSUnderlyingErrorKey] = Self.redactedNSError(underlying) }
        return info
    }

    /// The underlying error as an `NSError` that keeps its domain and code but only a redacted description: a
    /// foreign error's `userInfo` may hold a URL with a token in it.
    static func redactedNSError(_ error: any Error) -> NSError {
        let nsError = error as NSError
        let description = Redactor.standard.redact(text: String(describing: error))
        return NSError(domain: nsError.domain, code: nsError.code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// Restores a `MendError` from an `NSError` that Mend bridged (domain ``errorDomain``), or returns `nil`.
    ///
    /// The identity, category, recovery, messages, reference id, status and parsed JSON come back; the live
    /// ``recoveryAttempter`` and the Swift value of ``underlying`` do not cross the bridge (the underlying
    /// `NSError` does).
    public init?(bridging error: any Error, catalog: ErrorCatalog) {
        if let mend = error as? MendError {
            self = mend
            return
        }
        let nsError = error as NSError
        let info = nsError.userInfo
        guard nsError.domain == Self.errorDomain, let domainName = info[UserInfoKey.domain] as? String else {
            return nil
        }
        let code = Code(Domain(rawValue: domainName), nsError.code)
        let subcode = (info[UserInfoKey.subcode] as? Int).map(Subcode.init(rawValue:))
        self.init(
            code: code, subcode: subcode, developerMessage: info[UserInfoKey.developerMessage] as? String,
            providerTexts: [UserInfoKey.serverUserTitle, UserInfoKey.serverUserMessage].compactMap {
                info[$0] as? String
            }, isTransient: false, catalog: catalog)
        let category = (info[UserInfoKey.category] as? String).flatMap(Category.init(rawValue:)) ?? entry.category
        let action = (info[UserInfoKey.recovery] as? String).map(Recovery.Action.init(rawValue:)) ?? entry.recovery
        if category != entry.category || action != entry.recovery {
            override(.mendWire(category: category, recovery: action))
        }
        if let permissions = info[UserInfoKey.permissions] as? [String] { requestedPermissions = permissions }
        referenceID = info[UserInfoKey.referenceID] as? String
        additionalMessages = info[UserInfoKey.additionalMessages] as? [String] ?? []
        attempts = info[UserInfoKey.attempts] as? Int ?? 0
        serverUserTitle = info[UserInfoKey.serverUserTitle] as? String
        serverUserMessage = info[UserInfoKey.serverUserMessage] as? String
        if let status = info[UserInfoKey.httpStatus] as? Int { httpStatus = status }
        if let object = info[UserInfoKey.json], let json = JSONValue(foundationObject: object) {
            if response == nil { response = ResponseExcerpt(status: nil) }
            response?.json = json
        }
        if let underlyingError = info[NSUnderlyingErrorKey] as? NSError { underlying = underlyingError }
    }
}

extension JSONValue {
    /// The value as Foundation objects (`NSNull`, `Bool`, `Int`, `Double`, `String`, arrays, dictionaries).
    package var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }

    /// Converts Foundation objects (as `JSONSerialization` produces them) back to a value.
    init?(foundationObject object: Any) {
        switch object {
        case is NSNull: self = .null
        case let value as String: self = .string(value)
        case let value as Bool where type(of: value) == Bool.self: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case let values as [Any]:
            var converted: [JSONValue] = []
            for value in values {
                guard let element = JSONValue(foundationObject: value) else { return nil }
                converted.append(element)
            }
            self = .array(converted)
        case let members as [String: Any]:
            var converted: [String: JSONValue] = [:]
            for (key, value) in members {
                guard let element = JSONValue(foundationObject: value) else { return nil }
                converted[key] = element
            }
            self = .object(converted)
        default: return nil
        }
    }
}
