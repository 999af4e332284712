import Foundation
import MendCore

/// All of the emulator's mutable state, as one value: apps, users, posts, codes, tokens, the clock, faults, usage
/// counters and the request log. The ``Emulator`` actor owns one; ``reset`` builds a fresh one from the
/// configuration and the seed, so a reset emulator issues the same tokens again.
struct EmulatorState: Sendable {
    let configuration: EmulatorConfiguration
    var random: SeededGenerator
    var clock: EmulatorClock
    var apps: [String: EmulatedApp]
    var users: [String: EmulatedUserState]
    var userOrder: [String]
    var posts: [String: [Post]]
    var tokens: [String: TokenRecord] = [:]
    var codes: [String: AuthorizationCode] = [:]
    var dialogs: [String: PendingDialog] = [:]
    /// Device logins by device code.
    var deviceLogins: [String: DeviceAuthorization] = [:]
    var faults = FaultBook()
    var log = RequestLog()
    var usage = UsageBook()
    var signingKeys = SigningKeyRing()
    var autoConsent: AutoConsent
    var autoConsentUserID: String?
    var rest = RESTStore()
    /// The emulated OpenID Connect issuers (Apple, Google).
    var issuers: IssuerState
    /// Increases with every token issue and state change (orders them even when the clock stands still).
    var generation = 0

    init(configuration: EmulatorConfiguration) {
        self.configuration = configuration
        self.random = SeededGenerator(seed: configuration.seed)
        self.issuers = IssuerState(seed: configuration.seed)
        let start = configuration.startTime ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        self.clock = EmulatorClock(start: start, mode: configuration.clockMode)
        self.apps = Dictionary(configuration.apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.users = Dictionary(
            configuration.users.map { ($0.id, EmulatedUserState(profile: $0, state: $0.state)) },
            uniquingKeysWith: { first, _ in first })
        self.userOrder = configuration.users.map(\.id)
        self.autoConsent = configuration.autoConsent
        self.autoConsentUserID = configuration.autoConsentUserID
        self.posts = [:]
        for user in configuration.users {
            // Newest first, one hour apart, ending an hour before the start.
            posts[user.id] = (0..<user.seedPostCount).map { index in
                Post(
                    id: "\(user.id)_\(1_000_000 + user.seedPostCount - index)", fromID: user.id,
                    message: "Post \(user.seedPostCount - index) by \(user.firstName)",
                    createdTime: start.addingTimeInterval(-3600 * Double(index + 1)))
            }
        }
        for user in configuration.users where user.state == .passwordChanged {
            users[user.id]?.passwordChangedGeneration = 0
            users[user.id]?.state = .active
        }
    }

    var now: Date { clock.now }
    var graphVersion: String { configuration.graphVersion }
    var defaultUserID: String { autoConsentUserID ?? userOrder[0] }

    mutating func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// A fresh trace id (`fbtrace_id`).
    mutating func traceID() -> String {
        "A" + random.alphanumeric(22)
    }
}
