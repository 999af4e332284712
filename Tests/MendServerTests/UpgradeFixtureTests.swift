import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendEmulator
import MendHTTP
import MendLogin
import MendTesting
import SQLKit
import Testing

@testable import MendServer

/// Databases made by a released mend-server (schema 8, before the server's parts were split: Facebook's token on the
/// user's row), committed under `Fixtures/schema-8/`: today's server upgrades each and finds every user, identity and
/// session, and the sessions still refresh.
///
/// The fixtures were made by ``makeFixtures()`` (`MEND_MAKE_UPGRADE_FIXTURE=1 swift test --filter
/// UpgradeFixtureTests.makeFixtures`) at commit d5bcaf1; each database has a manifest of what it holds, with the keys
/// it was made with (test keys, made for the fixture and used nowhere else).
@Suite("A database made by an earlier release", .serialized)
struct UpgradeFixtureTests {
    /// What a fixture database holds, and the keys it was made with.
    struct Manifest: Codable {
        /// The schema version the database was left at.
        var schemaVersion: Int
        /// When it was made (the server's clock, seconds since 1970): the test runs the server's clock from here.
        var madeAt: Double
        /// `MEND_SIGNING_KEYS`.
        var signingKeys: String
        /// `MEND_TOKEN_ENCRYPTION_KEY`.
        var tokenEncryptionKey: String
        var users: [User]

        struct User: Codable {
            var id: String
            /// `provider:subject`, sorted.
            var identities: [String]
            /// The Facebook token the server keeps for the user, if it keeps one.
            var facebookToken: String?
            /// The provider refresh tokens the server keeps per identity (`provider:subject` → token).
            var providerRefreshTokens: [String: String]
            var sessions: [Session]
        }

        struct Session: Codable {
            var id: String
            var accessToken: String
            var refreshToken: String
            /// Logged out before the fixture was taken.
            var ended: Bool
        }
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/schema-8")

    static func manifest(_ database: TestDatabase) throws -> Manifest {
        try JSONDecoder().decode(
            Manifest.self,
            from: Data(contentsOf: directory.appendingPathComponent("\(database.rawValue).json")))
    }

    /// The emulator and a server on `databaseURL` with the fixture's keys, its clock at `madeAt` + 60 s, and the
    /// admin API on.
    static func run(
        databaseURL: String, keys: (signing: String, encryption: String), madeAt: Double?,
        _ body: (TestStack) async throws -> Void
    ) async throws {
        try await withEmulator { emulator in
            let clock = OffsetClock()
            if let madeAt { clock.advance(by: madeAt + 60 - Date().timeIntervalSince1970) }
            var configuration = ServerConfiguration.forEmulator(emulator)
            configuration.storage.databaseURL = databaseURL
            configuration.storage.tokenEncryptionKey = Secret(keys.encryption)
            configuration.sessions.signingKeys = try SigningKeyConfiguration.parse(list: keys.signing)
            configuration.sessions.rateLimits = .unlimited
            // The kept provider tokens are not checked at the provider (this emulator never issued them).
            configuration.providers.facebook?.validityCheckInterval = .seconds(86_400 * 30)
            configuration.clock = clock.pipeline()
            await configuration.useAppleCredentials(of: emulator)
            AdminAPITests.withAdmin(&configuration)
            try await withMendServer(configuration: configuration) { server in
                try await body(
                    TestStack(emulator: emulator, server: server, client: ServerClient(server.baseURL), clock: clock))
            }
        }
    }

    @Test(
        "Today's server upgrades a database made by schema 8: every user, identity and session, and they refresh",
        arguments: TestDatabase.available)
    func upgrades(database: TestDatabase) async throws {
        let manifest = try Self.manifest(database)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mend-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let keys = (manifest.signingKeys, manifest.tokenEncryptionKey)
        switch database {
        case .sqlite:
            let copy = work.appendingPathComponent("mend.sqlite")
            try FileManager.default.copyItem(at: Self.directory.appendingPathComponent("sqlite.sqlite"), to: copy)
            try await Self.run(databaseURL: "sqlite://\(copy.path)", keys: keys, madeAt: manifest.madeAt) {
                try await Self.check(manifest, on: $0)
            }
        case .postgres:
            let admin = try #require(TestDatabase.postgresURL)
            try await PostgresTestDatabase.with(adminURL: admin) { url in
                try await Self.restore(Self.directory.appendingPathComponent("postgres.sql"), into: url)
                try await Self.run(databaseURL: url, keys: keys, madeAt: manifest.madeAt) {
                    try await Self.check(manifest, on: $0)
                }
            }
        }
    }

    /// Every user, identity and session of `manifest` is found; the live sessions' access tokens still work and
    /// their refresh tokens refresh; the ended ones stay ended; the kept provider tokens are still readable.
    static func check(_ manifest: Manifest, on stack: TestStack) async throws {
        // Schema 9 moved Facebook's token onto its identity: nothing of it is left on the users' rows.
        let sql = stack.server.backend.store.sql
        let left = try await sql.raw(
            """
            SELECT COUNT(*) AS n FROM mend_users WHERE provider_token IS NOT NULL
                OR provider_token_expires_at IS NOT NULL OR provider_token_checked_at IS NOT NULL
            """
        ).first()?.decode(column: "n", as: Int.self)
        #expect(left == 0)
        let listed = try await AdminAPITests.send(stack, .get, "/v1/admin/users?limit=100")
        let ids = Set(listed["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        #expect(ids == Set(manifest.users.map(\.id)))
        for user in manifest.users {
            let detail = try await AdminAPITests.send(stack, .get, "/v1/admin/users/\(user.id)")
            let identities = (detail["identities"]?.arrayValue ?? []).compactMap { identity -> String? in
                guard let provider = identity["provider"]?.stringValue, let subject = identity["subject"]?.stringValue
                else { return nil }
                return "\(provider):\(subject)"
            }
            #expect(identities.sorted() == user.identities, "\(user.id)")
            let sessions = Set((detail["sessions"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
            #expect(sessions == Set(user.sessions.filter { !$0.ended }.map(\.id)), "\(user.id)")
            #expect(try await Self.heldFacebookToken(of: user.id, in: stack) == user.facebookToken, "\(user.id)")
            for (identity, token) in user.providerRefreshTokens {
                let parts = identity.split(separator: ":", maxSplits: 1).map(String.init)
                let held = try await stack.server.backend.store.identities.identity(
                    provider: parts[0], subject: parts[1])
                #expect(held?.providerToken == token, "\(identity)")
            }
            for session in user.sessions {
                if session.ended {
                    let refused = await stack.client.failure {
                        try await stack.client.refresh(.string(session.refreshToken))
                    }
                    #expect(refused?.code == .Session.loggedOut, "\(session.id)")
                    continue
                }
                let checked = try await stack.client.get("/v1/session", bearer: session.accessToken).json()
                #expect(checked["session_id"]?.stringValue == session.id)
                let refreshed = try await stack.client.refresh(.string(session.refreshToken))
                #expect(refreshed["session_id"]?.stringValue == session.id)
                let access = try #require(refreshed["access_token"]?.stringValue)
                let me = try await stack.client.get("/v1/me", bearer: access).json()
                #expect(me["id"]?.stringValue == user.id)
            }
        }
    }

    /// The Facebook token the server keeps for `userID`.
    static func heldFacebookToken(of userID: String, in stack: TestStack) async throws -> String? {
        try await stack.server.backend.store.identities.identity(provider: "facebook", userID: userID)?.providerToken
    }

    /// Loads a plain `pg_dump` into the database at `url` with `psql`.
    static func restore(_ dump: URL, into url: String) async throws {
        try await Self.postgresTool(
            "psql", ["--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--file", dump.path, url])
    }

    /// Runs a tool of the PostgreSQL that scripts/test installs (the newest under /usr/lib/postgresql).
    static func postgresTool(_ name: String, _ arguments: [String]) async throws {
        let versions = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
        let tool = try #require(
            versions.map { "/usr/lib/postgresql/\($0)/bin/\(name)" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "\(name) is not installed")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        await process.exited()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "\(name): \(text)")
    }

    // MARK: Making the fixtures

    @Test(
        "Makes the fixtures (MEND_MAKE_UPGRADE_FIXTURE=1; by hand, on the release being fixed)",
        .enabled(if: ProcessInfo.processInfo.environment["MEND_MAKE_UPGRADE_FIXTURE"] != nil))
    func makeFixtures() async throws {
        try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        let keys = (
            signing: SigningKeyConfiguration.generate(keyID: "fixture").environmentValue,
            encryption: Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        )
        let file = Self.directory.appendingPathComponent("sqlite.sqlite")
        try? FileManager.default.removeItem(at: file)
        var manifest = Manifest(
            schemaVersion: Migrations.all.last!.version, madeAt: 0, signingKeys: keys.signing,
            tokenEncryptionKey: keys.encryption, users: [])
        try await Self.run(databaseURL: "sqlite://\(file.path)", keys: keys, madeAt: nil) { stack in
            manifest.users = try await Self.populate(stack)
            manifest.madeAt = stack.clock.now.timeIntervalSince1970
        }
        try Self.write(manifest, as: .sqlite)
        guard let admin = TestDatabase.postgresURL else { return }
        try await PostgresTestDatabase.with(adminURL: admin) { url in
            try await Self.run(databaseURL: url, keys: keys, madeAt: nil) { stack in
                manifest.users = try await Self.populate(stack)
                manifest.madeAt = stack.clock.now.timeIntervalSince1970
            }
            try Self.write(manifest, as: .postgres)
            try await Self.postgresTool(
                "pg_dump",
                [
                    "--no-owner", "--no-privileges", "--inserts", "--file",
                    Self.directory.appendingPathComponent("postgres.sql").path, url,
                ])
        }
    }

    static func write(_ manifest: Manifest, as database: TestDatabase) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: directory.appendingPathComponent("\(database.rawValue).json"))
    }

    /// Alice: Facebook (two sessions, one refreshed) and a linked Apple identity (its sign-in a third session); Bob: Facebook, logged out of one of
    /// his two sessions; Carol: Google only, with the refresh token of her `serverAuthCode`.
    static func populate(_ stack: TestStack) async throws -> [Manifest.User] {
        func session(_ body: JSONValue, ended: Bool = false) throws -> Manifest.Session {
            Manifest.Session(
                id: try #require(body["session_id"]?.stringValue),
                accessToken: try #require(body["access_token"]?.stringValue),
                refreshToken: try #require(body["refresh_token"]?.stringValue), ended: ended)
        }
        func user(_ id: String, sessions: [Manifest.Session]) async throws -> Manifest.User {
            let store = stack.server.backend.store.identities
            let identities = try await store.identities(userID: id)
            var kept: [String: String] = [:]
            for identity in identities {
                if let token = identity.providerToken, identity.provider != "facebook" {
                    kept["\(identity.provider):\(identity.subject)"] = token
                }
            }
            return Manifest.User(
                id: id, identities: identities.map { "\($0.provider):\($0.subject)" }.sorted(),
                facebookToken: try await heldFacebookToken(of: id, in: stack), providerRefreshTokens: kept,
                sessions: sessions)
        }

        let alicePhone = try await stack.login()
        let aliceID = try #require(alicePhone["user"]?["id"]?.stringValue)
        stack.clock.advance(by: 5)
        let aliceLaptop = try await stack.client.refresh(
            try await stack.login()["refresh_token"])
        let aliceApple = try await IDTokenLoginTests.signIn(
            stack, provider: "apple", try await IDTokenLoginTests.nativeToken(stack, "apple"),
            bearer: try #require(alicePhone["access_token"]?.stringValue))

        stack.clock.advance(by: 5)
        let bobPhone = try await stack.login(userID: DevicesTests.bob)
        let bobTablet = try await stack.login(userID: DevicesTests.bob)
        let bobID = try #require(bobPhone["user"]?["id"]?.stringValue)
        _ = try await stack.client.post(
            "/v1/session/logout", json: .object([:]), bearer: try #require(bobTablet["access_token"]?.stringValue),
            expectsJSON: false)

        stack.clock.advance(by: 5)
        let google = try await IDTokenLoginTests.nativeToken(
            stack, "google", serverClientID: IDTokenLoginTests.googleServerClient)
        let carol = try await IDTokenLoginTests.signIn(stack, provider: "google", google, code: google.code)
        let carolID = try #require(carol["user"]?["id"]?.stringValue)

        return [
            try await user(
                aliceID, sessions: [try session(alicePhone), try session(aliceLaptop), try session(aliceApple)]),
            try await user(bobID, sessions: [try session(bobPhone), try session(bobTablet, ended: true)]),
            try await user(carolID, sessions: [try session(carol)]),
        ]
    }
}
