import Foundation
import MendCore
import MendFacebook
import MendHTTP
import MendHTTPAsyncHTTPClient
import MendLogin
import MendServer
import MendTesting
import Testing

@Suite("The user's devices through BackendSessionClient, against mend-server")
struct BackendDevicesTests {
    /// A login manager and a credentials manager on their own store, whose backend client calls itself `client`.
    static func device(
        _ emulator: RunningEmulator, server: URL, client: String?
    ) -> (login: LoginManager, credentials: CredentialsManager, backend: BackendSessionClient) {
        var backend = BackendSessionClient(baseURL: server, transport: AsyncHTTPClientTransport())
        if let client { backend.clientIdentifier = client }
        let provider = LoginProvider.emulator(
            baseURL: emulator.baseURL, appID: emulator.emulator.configuration.defaultApp.id,
            version: emulator.emulator.configuration.graphVersion)
        let credentials = CredentialsManager(store: InMemoryTokenStore(), authority: backend)
        return (LoginManager(provider: provider, credentials: credentials), credentials, backend)
    }

    @Test("Each device's client is listed; one device ends another; others signs the rest out; every call names itself")
    func devices() async throws {
        try await withEmulator { emulator in
            try await withMendServer(configuration: .forEmulator(emulator)) { server in
                let phone = Self.device(emulator, server: server.baseURL, client: nil)
                let tablet = Self.device(emulator, server: server.baseURL, client: "Tablet/2.0 (iPadOS 18.1)")
                let laptop = Self.device(emulator, server: server.baseURL, client: "Laptop/1.0 (macOS 15.2)")
                for device in [phone, tablet, laptop] {
                    _ = try await device.login.logIn(presenter: presenter(.grantAll))
                }
                #expect(phone.backend.clientIdentifier == MendVersion.clientIdentifier(name: "MendLogin"))

                let listed = try await phone.backend.sessions(
                    using: try #require(try await phone.credentials.currentCredential()))
                // Logged in within the same second here: newest first, and in no particular order among equals.
                let byClient = Dictionary(uniqueKeysWithValues: listed.map { ($0.client ?? "", $0) })
                #expect(Set(byClient.keys) == ["Laptop/1.0", "Tablet/2.0", "MendLogin/\(MendVersion.current)"])
                #expect(byClient["Laptop/1.0"]?.platform == "macOS 15.2")
                #expect(byClient["Tablet/2.0"]?.platform == "iPadOS 18.1")
                #expect(byClient["MendLogin/\(MendVersion.current)"]?.platform == MendVersion.platform)
                #expect(listed.filter(\.isCurrent).map(\.client) == ["MendLogin/\(MendVersion.current)"])
                #expect(listed.allSatisfy { $0.refreshedAt == nil && $0.firstAddress == "127.0.0.1" })

                // A refresh is recorded on the device that made it.
                _ = try await tablet.credentials.refresh()
                let afterRefresh = try await phone.backend.sessions(
                    using: try #require(try await phone.credentials.currentCredential()))
                #expect(afterRefresh.filter { $0.refreshedAt != nil }.map(\.client) == ["Tablet/2.0"])

                // The phone ends the laptop's session: the laptop's next check signs it out, with the reason.
                let laptopID = try #require(listed.first { $0.client == "Laptop/1.0" }?.id)
                try await phone.backend.endSession(
                    id: laptopID, using: try #require(try await phone.credentials.currentCredential()))
                #expect(try await laptop.credentials.checkValidity(force: true) == false)
                #expect(await laptop.credentials.lastSignOut?.error?.code == .Session.loggedOut)
                let again = try await #require(throws: MendError.self) {
                    try await phone.backend.endSession(
                        id: laptopID + "x", using: try #require(try await phone.credentials.currentCredential()))
                }
                #expect(again.code == .REST.notFound)

                // The tablet signs out the others: the phone is signed out, the tablet goes on.
                let tabletSession = try #require(try await tablet.credentials.currentSession())
                try await tablet.backend.logout(tabletSession, scope: .others)
                #expect(try await tablet.credentials.checkValidity(force: true))
                #expect(try await phone.credentials.checkValidity(force: true) == false)
                #expect(await phone.credentials.lastSignOut?.error?.code == .Session.loggedOut)
                let remaining = try await tablet.backend.sessions(
                    using: try #require(try await tablet.credentials.currentCredential()))
                #expect(remaining.map(\.client) == ["Tablet/2.0"])
            }
        }
    }
}
