/// A test user of the emulated provider.
public struct TestUser: Sendable, Codable, Hashable {
    /// The user id (app-scoped ids are not emulated: every app sees the same id).
    public var id: String
    /// The full name.
    public var name: String
    /// The email address, returned when the `email` permission is granted.
    public var email: String?
    /// The profile picture URL.
    public var pictureURL: String
    /// The ids of the user's friends (the `friends` edge lists those who use the app).
    public var friendIDs: [String]
    /// The account state at the start: active, password changed, checkpointed or unconfirmed.
    public var state: AccountState
    /// How many feed posts the user starts with (for paging).
    public var seedPostCount: Int

    /// The state of a user's account, as the provider sees it.
    public enum AccountState: String, Sendable, Codable, Hashable, CaseIterable {
        /// Everything works.
        case active
        /// The user changed their password: tokens issued before fail with 190/460.
        case passwordChanged
        /// The user is checkpointed: every token fails with 190/459 until the user is active again.
        case checkpointed
        /// The user has not confirmed the account: every token fails with 190/464.
        case unconfirmed
    }

    /// Creates a user.
    public init(
        id: String, name: String, email: String? = nil, pictureURL: String? = nil, friendIDs: [String] = [],
        state: AccountState = .active, seedPostCount: Int = 0
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.pictureURL = pictureURL ?? "https://emulator.mend.invalid/pictures/\(id).jpg"
        self.friendIDs = friendIDs
        self.state = state
        self.seedPostCount = seedPostCount
    }

    enum CodingKeys: String, CodingKey {
        case id, name, email, pictureURL, friendIDs, state, seedPostCount
    }

    /// Decodes a user; only `id` and `name` are required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            email: try container.decodeIfPresent(String.self, forKey: .email),
            pictureURL: try container.decodeIfPresent(String.self, forKey: .pictureURL),
            friendIDs: try container.decodeIfPresent([String].self, forKey: .friendIDs) ?? [],
            state: try container.decodeIfPresent(AccountState.self, forKey: .state) ?? .active,
            seedPostCount: try container.decodeIfPresent(Int.self, forKey: .seedPostCount) ?? 0)
    }

    /// The users that the emulator registers when the configuration names none: Alice (the default login, with 30
    /// posts and two friends), Bob and Carol.
    public static let defaults: [TestUser] = [
        TestUser(
            id: "100000000000001", name: "Alice Example", email: "alice@example.com",
            friendIDs: ["100000000000002", "100000000000003"], seedPostCount: 30),
        TestUser(
            id: "100000000000002", name: "Bob Example", email: "bob@example.com", friendIDs: ["100000000000001"],
            seedPostCount: 3),
        TestUser(id: "100000000000003", name: "Carol Example", email: nil, friendIDs: ["100000000000001"]),
    ]

    /// The first name (the first word of the name).
    var firstName: String { String(name.split(separator: " ").first ?? Substring(name)) }
    /// The last name (the rest of the name).
    var lastName: String { name.split(separator: " ").dropFirst().joined(separator: " ") }
}
