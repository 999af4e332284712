import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendRecording
import MendTesting
import Testing

/// A day of Graph traffic recorded against the emulator, then replayed with no emulator running.
@Suite struct RecordReplayTests {
    /// What the app saw: every result and every error, and how many waits its retries made.
    struct Outcome: Equatable {
        var posts: [String] = []
        var batch: [String] = []
        var retried: [String] = []
        var graphQL: [String] = []
        var waits = 0
    }

    /// The app's calls: a long-lived token exchanged for a short one (the token it answers is the one every later
    /// call presents), the feed across pages, a batch with a failing part, a profile read through a 503 (retried),
    /// and a GraphQL query whose answer is partial.
    static func day(
        transport: any HTTPTransport, graphURL: URL, version: String, appID: String, appSecret: String,
        shortToken: String, partialToken: String, before503: @Sendable () async throws -> Void
    ) async throws -> (Outcome, token: String) {
        var outcome = Outcome()
        let waits = Locked<Int>(0)
        let clock = PipelineClock(sleep: { _ in waits.withLock { $0 += 1 } })
        let exchange = APIClient(
            transport: transport, configuration: .init(errorDecoder: GraphErrorDecoder(), catalog: .graph, clock: clock)
        )
        var query = URLComponents(
            url: graphURL.appendingPathComponent("\(version)/oauth/access_token"), resolvingAgainstBaseURL: false)!
        query.queryItems = [
            URLQueryItem(name: "grant_type", value: "fb_exchange_token"), URLQueryItem(name: "client_id", value: appID),
            URLQueryItem(name: "client_secret", value: appSecret),
            URLQueryItem(name: "fb_exchange_token", value: shortToken),
        ]
        let token = try #require(
            try await exchange.send(APIRequest(method: .get, url: query.url!)).decode(JSONValue.self)["access_token"]?
                .stringValue)

        let configuration = GraphClient.Configuration(
            graphURL: graphURL, version: version, appID: appID, clock: clock)
        let graph = GraphClient(
            transport: transport, configuration: configuration,
            steps: .graph(
                for: configuration, credentials: StaticCredential(token: token),
                retryPolicy: RetryPolicy(maximumAttempts: 3)))
        for try await post in graph.items(GraphRequest(path: "me/feed", parameters: ["limit": "100"]), of: Post.self) {
            outcome.posts.append(post.id)
        }
        let results = try await graph.send(
            GraphBatch(requests: [
                GraphRequest(path: "me", fields: ["id", "name"]), GraphRequest(path: "999999999999999", fields: ["id"]),
                GraphRequest(path: "me/friends"),
            ]))
        outcome.batch = results.map { result in
            result.error.map { "\($0.shortDescription) \($0.category)" } ?? (result.body?.jsonText() ?? "-")
        }
        try await before503()
        let me = try await graph.send(GraphRequest(path: "me", fields: ["id", "name"]))
        outcome.retried = [String(decoding: me.body, as: UTF8.self)]
        outcome.waits = waits.withLock { $0 }

        let graphQL = GraphQLClient(
            endpoint: graphURL.appendingPathComponent("graphql"), transport: transport,
            configuration: .init(clock: clock),
            steps: .standard(credentialProvider: StaticCredential(token: partialToken)))
        let partial = try await graphQL.send(
            GraphQLOperation("query Mine { me { name email friends { name email } } }"), as: JSONValue.self)
        outcome.graphQL =
            [partial.data?.jsonText() ?? "-"]
            + partial.classifiedErrors.map { "\($0.shortDescription) \($0.category) \($0.recovery.permissions)" }
        return (outcome, token)
    }

    struct Post: Decodable, Sendable {
        var id: String
    }

    @Test(
        "Recorded against the emulator, replayed with none: the same results, errors and retries; no secret in the file"
    )
    func recordThenReplay() async throws {
        let file = temporaryDirectory().appendingPathComponent("day.har")
        var configuration = EmulatorConfiguration()
        configuration.users[0].seedPostCount = 250
        var secrets: [String] = []
        let (recorded, graphURL, version, appID, appSecret) = try await withEmulator(configuration: configuration) {
            emulator in
            let app = emulator.emulator.configuration.defaultApp
            let short = try await emulator.token(scopes: ["public_profile", "user_posts"])
            let partial = try await emulator.token(scopes: ["public_profile"])
            let recorder = try RecordingTransport(
                wrapping: AsyncHTTPClientTransport(), file: file, mode: .all, errorDecoder: GraphErrorDecoder(),
                catalog: .graph)
            let (outcome, token) = try await Self.day(
                transport: recorder, graphURL: emulator.baseURL, version: emulator.emulator.configuration.graphVersion,
                appID: app.id, appSecret: app.secret, shortToken: short, partialToken: partial,
                before503: { try await emulator.inject(error: "http/503", path: "/me", times: 1) })
            secrets = [short, partial, app.secret, token]
            return (
                outcome, emulator.baseURL, emulator.emulator.configuration.graphVersion, app.id, app.secret
            )
        }
        #expect(recorded.posts.count == 250)
        #expect(recorded.batch.count == 3 && recorded.batch[1].hasPrefix("graph.100"))
        #expect(recorded.waits == 1)
        #expect(recorded.graphQL.count > 1)

        // The emulator is gone: the replay answers alone, with other short tokens (the app's new ones).
        let (replayed, replayedToken) = try await Self.day(
            transport: try ReplayTransport(recording: file), graphURL: graphURL, version: version, appID: appID,
            appSecret: appSecret, shortToken: "EAAreplayShortLivedToken000000000",
            partialToken: "EAAreplayPartialToken0000000000",
            before503: {})
        #expect(replayed == recorded)
        #expect(replayedToken.hasPrefix("<mend:access_token:"))

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in secrets where !secret.isEmpty {
            let base64 = Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])
            #expect(!text.contains(secret), "a secret, raw")
            #expect(!text.contains(base64), "a secret, base64")
            #expect(!text.contains(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!), "URL-encoded")
        }
        #expect(text.contains("<mend:access_token:"))
    }
}
