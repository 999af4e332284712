#if canImport(Security)
    public import Foundation
    public import MendCore
    import Security

    /// A session in the Keychain (Apple platforms), as the platform's credential store should hold it.
    ///
    /// A Keychain that cannot be read (locked before first unlock, interaction not allowed) throws `login/320`
    /// (retryable), never "logged out".
    public struct KeychainTokenStore: TokenStore {
        /// The Keychain service.
        public let service: String
        /// The account name of the item.
        public let account: String
        /// The access group, for sharing between an app and its extensions.
        public let accessGroup: String?

        /// Creates a store.
        public init(service: String, account: String = "session", accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// Reads the session.
        public func read() async throws -> Session? {
            var query = self.query
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            switch status {
            case errSecSuccess:
                guard let data = item as? Data, let session = try? JSONDecoder.session.decode(Session.self, from: data)
                else {
                    throw MendError.storeUnavailable("the Keychain item does not hold a session")
                }
                return session
            case errSecItemNotFound:
                return nil
            default:
                throw MendError.storeUnavailable("the Keychain answered \(status)")
            }
        }

        /// Writes the session (readable after the first unlock, this device only).
        public func write(_ session: Session) async throws {
            let data = try JSONEncoder.session.encode(session)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw MendError.storeUnavailable("the Keychain answered \(status)") }
        }

        /// Removes the session.
        public func delete() async throws {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw MendError.storeUnavailable("the Keychain answered \(status)")
            }
        }
    }
#endif
