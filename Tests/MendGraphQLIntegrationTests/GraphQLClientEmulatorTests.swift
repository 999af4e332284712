import Foundation
import MendCore
import MendEmulator
import MendGraphQL
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendTesting
import Testing

/// Serves a token from the emulator; the first one may be stale, and a refresh asks the emulator for a new one.
final class EmulatorTokens: CredentialProvider {
    let emulator: RunningEmulator
    let token: Locked<String>
    let refreshes = Locked<Int>(0)

    init(emulator: RunningEmulator, initial: String) {
        self.emulator = emulator
        self.token = Locked(initial)
    }

    func currentCredential() async throws -> Credential? { Credential(token: token.withLock { $0 }) }

    func refreshCredential(rejected: Credential, error: MendError) async throws -> Credential {
        refreshes.withLock { $0 += 1 }
        let fresh = try await emulator.token()
        token.withLock { $0 = fresh }
        return Credential(token: fresh)
    }
}

func graphQLClient(_ emulator: RunningEmulator, tokens: EmulatorTokens?, timeout: Duration? = nil) -> GraphQLClient {
    GraphQLClient(
        endpoint: emulator.url("/graphql"), transport: AsyncHTTPClientTransport(),
        configuration: .init(timeout: timeout, clock: PipelineClock(sleep: { _ in })),
        steps: .standard(credentialProvider: tokens))
}

struct MeQuery: Decodable, Sendable {
    struct User: Decodable, Sendable {
        var id: String?
        var name: String
        var email: String?
        var friends: [Friend]?
    }
    struct Friend: Decodable, Sendable {
        var name: String
        var email: String?
    }
    var me: User?
}

@Suite("GraphQL client against the emulator's endpoint")
struct GraphQLClientEmulatorTests {
    @Test("Full success")
    func success() async throws {
        try await withEmulator { emulator in
            let client = graphQLClient(
                emulator, tokens: EmulatorTokens(emulator: emulator, initial: try await emulator.token()))
            let response = try await client.send(GraphQLOperation("{ me { id name } }"), as: MeQuery.self)
            #expect(response.data?.me?.name == "Alice Example")
            #expect(response.errors.isEmpty)
            #expect(response.nulledPaths.isEmpty)
        }
    }

    @Test("Partial data with errors at nested paths and in lists")
    func partial() async throws {
        try await withEmulator { emulator in
            let client = graphQLClient(
                emulator,
                tokens: EmulatorTokens(
                    emulator: emulator, initial: try await emulator.token(scopes: ["public_profile"])))
            let response = try await client.send(
                GraphQLOperation("{ me { name email friends { name email } } }"), as: MeQuery.self)
            #expect(response.data?.me?.name == "Alice Example")
            #expect(!response.errors.isEmpty)
            let paths = Set(response.errors.compactMap(\.pathText))
            #expect(paths.contains("me.email") || paths.contains { $0.hasPrefix("me.friends[") })
            #expect(response.classifiedErrors.allSatisfy { $0.code == .GraphQL.forbidden })
            #expect(response.classifiedErrors.allSatisfy { $0.category == .recoverable })
            // extensions.missing_permission names the permission the recovery asks for.
            #expect(response.classifiedErrors.allSatisfy { $0.recovery.action == .requestPermissions })
            #expect(response.classifiedErrors.allSatisfy { $0.recovery.permissions == ["email"] })
        }
    }

    @Test("A failed non-null field nulls its nearest nullable parent; a failed non-null root nulls data")
    func bubbling() async throws {
        try await withEmulator { emulator in
            let client = graphQLClient(
                emulator, tokens: EmulatorTokens(emulator: emulator, initial: try await emulator.token()))
            let bubbled = try await client.send(GraphQLOperation("{ me { name secretNote } }"))
            #expect(bubbled.rawData?["me"] == .null)
            #expect(bubbled.nulledPaths == ["me"])
            #expect(bubbled.errors.first?.pathText == "me.secretNote")
            #expect(bubbled.classifiedErrors.first?.code == .GraphQL.internalServerError)

            let rootless = try await client.send(GraphQLOperation("{ broken }"))
            #expect(rootless.rawData == .null)
            #expect(rootless.data == nil)
            #expect(rootless.nulledPaths == ["data"])
            #expect(rootless.attempts == 3, "a transient failure of a whole query is retried")
        }
    }

    @Test("UNAUTHENTICATED triggers one re-authentication and one replay")
    func unauthenticated() async throws {
        try await withEmulator { emulator in
            let tokens = EmulatorTokens(emulator: emulator, initial: "EAAnotAvalidTokenAtAllXXXXXXXX")
            let response = try await graphQLClient(emulator, tokens: tokens)
                .send(GraphQLOperation("{ me { name } }"), as: MeQuery.self)
            #expect(response.data?.me?.name == "Alice Example")
            #expect(response.attempts == 2)
            #expect(tokens.refreshes.current == 1)
        }
    }

    @Test("Mutations are not retried; the error policies")
    func policies() async throws {
        try await withEmulator { emulator in
            let client = graphQLClient(
                emulator, tokens: EmulatorTokens(emulator: emulator, initial: try await emulator.token()))
            let operation = GraphQLOperation("{ me { name secretNote } }")
            let all = try await client.send(operation, errorPolicy: .all)
            #expect(all.errors.count == 1)
            let ignore = try await client.send(operation, errorPolicy: .ignore)
            #expect(ignore.errors.isEmpty)
            #expect(ignore.rawData?["me"] == .null)
            let thrown = try await #require(throws: MendError.self) {
                try await client.send(operation, errorPolicy: .none)
            }
            #expect(thrown.code == .GraphQL.responseHasErrors)
            #expect(thrown.category == .transient)
            #expect((thrown.underlying as? GraphQLErrors)?.errors.count == 1)
            let mutation = GraphQLOperation("mutation { broken }")
            #expect(mutation.kind == .mutation)
            #expect(operation.kind == .query)
        }
    }

    @Test(
        "Execution errors are thrown, classified",
        arguments: [
            (FaultRule(kind: .html, path: "/graphql", status: 502), MendError.Code.HTTP.badGateway),
            (FaultRule(kind: .truncatedJSON, path: "/graphql"), .Transport.malformedResponse),
            (FaultRule(kind: .drop, path: "/graphql"), .Transport.connectionLost),
            (FaultRule(kind: .delay, path: "/graphql", delayMilliseconds: 4000), .Transport.timedOut),
        ])
    func executionErrors(fault: FaultRule, code: MendError.Code) async throws {
        try await withEmulator { emulator in
            try await emulator.inject(fault)
            let client = graphQLClient(
                emulator, tokens: EmulatorTokens(emulator: emulator, initial: try await emulator.token()),
                timeout: fault.kind == .delay ? .seconds(1) : .seconds(30))
            let error = try await #require(throws: MendError.self) {
                try await client.send(GraphQLOperation("{ me { name } }"))
            }
            #expect(error.code == code, "\(error)")
            #expect(error.category == .transient)
        }
    }
}
