public import Foundation
public import MendCore

/// A session in the Keychain (Apple platforms), as the platform's credential store should hold it.
///
/// - A Keychain that cannot be read (locked before first unlock, interaction not allowed) throws `login/320`
///   (retryable), never "logged out".
/// - Exclusion (``withExclusiveAccess(_:)``): an app and its extensions that share the item through an access group
///   are separate processes, and each may refresh the session. Give the store the shared app-group container
///   (`FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`) and it holds an advisory lock file
///   there, so the processes take turns as processes sharing a ``FileTokenStore`` do. Without a container the lock is
///   process-local: the managers and tasks of one process take turns, other processes are not excluded.
/// - The Keychain itself is reached through a small internal seam that tests replace (the logic above is
///   the same on every platform and is tested on Linux through it).
///
/// ```swift
/// let group = "group.com.example.app"
/// let store = KeychainTokenStore(
///     service: "com.example.app.session", accessGroup: "TEAMID.\(group)",
///     sharedContainer: FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group))
/// ```
public struct KeychainTokenStore: TokenStore {
    /// The Keychain service.
    package let service: String
    /// The account name of the item.
    package let account: String
    /// The access group, for sharing between an app and its extensions.
    package let accessGroup: String?
    /// The app-group container that holds the lock file, when the item is shared between processes.
    package let sharedContainer: URL?
    let keychain: any KeychainItemAccess

    /// Creates a store over `keychain` (the system Keychain by default, on Apple platforms).
    ///
    /// - Parameters:
    ///   - service: The Keychain service.
    ///   - account: The account name of the item.
    ///   - accessGroup: The access group an app shares with its extensions, if any.
    ///   - sharedContainer: The app-group container for the cross-process lock file (see the type's documentation).
    ///   - keychain: What reads and writes the item.
    package init(
        service: String, account: String = "session", accessGroup: String? = nil, sharedContainer: URL? = nil,
        keychain: any KeychainItemAccess
    ) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.sharedContainer = sharedContainer
        self.keychain = keychain
    }

    var item: KeychainItem { KeychainItem(service: service, account: account, accessGroup: accessGroup) }

    /// The lock: a file in the shared container when there is one, this process only otherwise.
    var lock: StoreLock {
        let name = "keychain:\(accessGroup ?? "-"):\(service):\(account)"
        guard let sharedContainer else { return StoreLock(named: name) }
        let safe = "\(service).\(account)".map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" }
        let file = sharedContainer.appendingPathComponent(".mend-keychain-\(String(safe)).lock")
        return StoreLock(named: "file:\(file.standardizedFileURL.path)", file: file)
    }

    /// Reads the session.
    public func read() async throws -> Session? {
        let data: Data?
        do {
            data = try keychain.data(for: item)
        } catch {
            throw MendError.storeUnavailable("the Keychain answered \(error.status)")
        }
        guard let data else { return nil }
        guard let session = try? JSONDecoder.session.decode(Session.self, from: data) else {
            throw MendError.storeUnavailable("the Keychain item does not hold a session")
        }
        return session
    }

    /// Writes the session (readable after the first unlock, this device only).
    public func write(_ session: Session) async throws {
        let data = try JSONEncoder.session.encode(session)
        do {
            try keychain.setData(data, for: item)
        } catch {
            throw MendError.storeUnavailable("the Keychain answered \(error.status)")
        }
    }

    /// Removes the session.
    public func delete() async throws {
        do {
            try keychain.removeData(for: item)
        } catch {
            throw MendError.storeUnavailable("the Keychain answered \(error.status)")
        }
    }

    /// Runs `body` while holding the store's lock (see the type's documentation for its reach).
    public func withExclusiveAccess<Result: Sendable>(
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        if let sharedContainer {
            do {
                try FileManager.default.createDirectory(at: sharedContainer, withIntermediateDirectories: true)
            } catch {
                throw MendError.storeUnavailable("the shared container cannot be created")
            }
        }
        return try await lock.withLock(body)
    }
}

/// One Keychain item: a generic password named by service, account and access group.
package struct KeychainItem: Sendable, Hashable {
    /// The service.
    package var service: String
    /// The account.
    package var account: String
    /// The access group, if any.
    package var accessGroup: String?

    /// Names an item.
    package init(service: String, account: String, accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }
}

/// A Keychain status other than success or "not found" (`OSStatus`).
package struct KeychainFailure: Error, Sendable, Hashable {
    /// The status the Keychain answered (`errSecInteractionNotAllowed`, …).
    package var status: Int32

    /// Creates a failure.
    package init(status: Int32) { self.status = status }
}

/// What ``KeychainTokenStore`` needs of a Keychain: the seam between the store's logic and the system's
/// `SecItem` functions (`SystemKeychain` on Apple platforms), which tests replace with an item dictionary.
package protocol KeychainItemAccess: Sendable {
    /// The item's data, or `nil` when there is no item (`errSecItemNotFound`).
    func data(for item: KeychainItem) throws(KeychainFailure) -> Data?
    /// Creates or replaces the item's data.
    func setData(_ data: Data, for item: KeychainItem) throws(KeychainFailure)
    /// Removes the item; a missing item is fine.
    func removeData(for item: KeychainItem) throws(KeychainFailure)
}

#if canImport(Security)
    import Security

    /// The system Keychain, through `SecItemCopyMatching`, `SecItemUpdate`, `SecItemAdd` and `SecItemDelete`.
    struct SystemKeychain: KeychainItemAccess {
        /// Creates the accessor.
        init() {}

        private func query(_ item: KeychainItem) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: item.service,
                kSecAttrAccount as String: item.account,
            ]
            if let accessGroup = item.accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// `SecItemCopyMatching`.
        func data(for item: KeychainItem) throws(KeychainFailure) -> Data? {
            var search = query(item)
            search[kSecReturnData as String] = true
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else { throw KeychainFailure(status: status) }
            return data
        }

        /// `SecItemUpdate`, or `SecItemAdd` when there is no item (readable after the first unlock, this device only).
        func setData(_ data: Data, for item: KeychainItem) throws(KeychainFailure) {
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query(item) as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query(item).merging(attributes) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw KeychainFailure(status: status) }
        }

        /// `SecItemDelete`.
        func removeData(for item: KeychainItem) throws(KeychainFailure) {
            let status = SecItemDelete(query(item) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainFailure(status: status) }
        }
    }

    extension KeychainTokenStore {
        /// Creates a store in the system Keychain.
        ///
        /// - Parameters:
        ///   - service: The Keychain service.
        ///   - account: The account name of the item.
        ///   - accessGroup: The access group an app shares with its extensions, if any.
        ///   - sharedContainer: The app-group container for the cross-process lock file; without it the lock is
        ///     process-local.
        public init(
            service: String, account: String = "session", accessGroup: String? = nil, sharedContainer: URL? = nil
        ) {
            self.init(
                service: service, account: account, accessGroup: accessGroup, sharedContainer: sharedContainer,
                keychain: SystemKeychain())
        }
    }
#endif
