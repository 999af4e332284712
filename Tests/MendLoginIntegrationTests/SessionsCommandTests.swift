import Foundation
import MendCore
import MendLogin
import MendTesting
import Testing

@testable import MendServer

/// `mend sessions`, `mend sessions end` and `mend logout --others|--everywhere`, through the built binary, on two
/// state folders (two devices) against one mend-server.
@Suite("mend sessions and the sign-out scopes, through the binary")
struct SessionsCommandTests {
    @Test func twoDevicesSeeEndAndSignOutEachOther() async throws {
        try await LifecycleStack.run(lifetime: .serverDefault) { laptop in
            let phone = LifecycleStack(
                emulator: laptop.emulator, server: laptop.server, clock: laptop.clock, lifetime: laptop.lifetime,
                directory: temporaryDirectory())
            try await laptop.login()
            try await phone.login()

            // mend-server bound the session to the key the tool made (DPoP, by default): the stored access token's
            // cnf.jkt is that key's thumbprint.
            let who = try await laptop.mend(["whoami", "--json"])
            let binding = try JSONValue.parse(Data(who.output.utf8)).get()["binding"]
            #expect(binding?["scheme"]?.stringValue == "DPoP", "\(who.output)")
            let thumbprint = try #require(binding?["keyThumbprint"]?.stringValue)
            #expect(thumbprint.count == 43 && binding?["accessTokenJKT"]?.stringValue == thumbprint)

            let listed = try await laptop.mend(["sessions", "--json"])
            #expect(listed.status == 0, "\(listed.output)")
            let sessions = try JSONValue.parse(Data(listed.output.utf8)).get()["sessions"]?.arrayValue ?? []
            #expect(sessions.count == 2)
            #expect(sessions.allSatisfy { $0["client"]?.stringValue == "mend/\(MendVersion.current)" })
            #expect(sessions.allSatisfy { $0["platform"]?.stringValue == MendVersion.platform })
            #expect(sessions.filter { $0["current"]?.boolValue == true }.count == 1)
            let phoneID = try #require(sessions.first { $0["current"]?.boolValue == false }?["id"]?.stringValue)
            let text = try await laptop.mend(["sessions"])
            #expect(text.output.contains("* ses_") && text.output.contains("  \(phoneID)  mend/"))

            // The laptop ends the phone's session: the phone is signed out, with the reason.
            #expect(try await laptop.mend(["sessions", "end", phoneID]).status == 0)
            let phoneAfter = try await phone.mend(["whoami", "--json"])
            #expect(phoneAfter.status == 4)  // not logged in any more
            #expect(phoneAfter.output.contains("\"loggedIn\":false"))
            #expect(try await laptop.mend(["sessions", "end", phoneID + "x"]).status == 1)

            // --others: the phone (logged in again) is signed out, the laptop goes on.
            try await phone.login()
            #expect(try await laptop.mend(["logout", "--others"]).status == 0)
            #expect(try await phone.mend(["whoami"]).status == 4)
            #expect(try await laptop.mend(["whoami"]).status == 0)

            // --everywhere: both, the laptop's local session forgotten.
            try await phone.login()
            let everywhere = try await laptop.mend(["logout", "--everywhere"])
            #expect(everywhere.status == 0 && everywhere.output.contains("Signed out everywhere"))
            #expect(try await laptop.store.read() == nil)
            #expect(try await phone.mend(["whoami"]).status == 4)
            #expect(try await laptop.mend(["logout", "--others", "--everywhere"]).status == 64)
        }
    }
}
