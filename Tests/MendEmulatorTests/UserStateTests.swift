import Foundation
import HTTPTypes
import MendCore
import MendEmulator
import Testing

/// What users do outside the app: change the password, get checkpointed, remove the app, revoke a permission;
/// and tokens that expire with the clock.
struct UserStateTests {
    @Test(arguments: [
        (UserStateChange.passwordChanged, 460), (.checkpointed, 459), (.unconfirmed, 464),
        (.appRemoved(appID: nil), 458),
    ])
    func userStateChangesInvalidateTokens(change: UserStateChange, subcode: Int) async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200)
            try await emulator.setUserState(change, userID: alice)
            let reply = try await client.get("\(v)/me?access_token=\(token)")
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?["code"]?.intValue == 190)
            #expect(reply.json?["error"]?["error_subcode"]?.intValue == subcode)
            // Bob is not affected.
            let bobToken = try await emulator.issueToken(userID: bob)
            #expect(try await client.get("\(v)/me?access_token=\(bobToken)").status == 200)
            // A new login works again after a password change or an app removal; checkpoints last until cleared.
            let fresh = try await emulator.issueToken(userID: alice)
            let freshReply = try await client.get("\(v)/me?access_token=\(fresh)")
            switch change {
            case .checkpointed, .unconfirmed:
                #expect(freshReply.json?["error"]?["error_subcode"]?.intValue == subcode)
                try await emulator.setUserState(.active, userID: alice)
                #expect(try await client.get("\(v)/me?access_token=\(fresh)").status == 200)
            default:
                #expect(freshReply.status == 200)
            }
        }
    }

    @Test func tokensExpireWithTheControllableClock() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, lifetime: 3600)
            await emulator.advanceClock(by: 3599)
            #expect(try await client.get("\(v)/me?access_token=\(token)").status == 200)
            await emulator.advanceClock(by: 1)
            let reply = try await client.get("\(v)/me?access_token=\(token)")
            #expect(reply.json?["error"]?["error_subcode"]?.intValue == 463)
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("Session has expired on") == true)
        }
    }

    @Test func permissionRevocationAppliesToExistingTokens() async throws {
        try await withEmulatorClient(.router) { client, emulator in
            let token = try await emulator.issueToken(userID: alice, scopes: ["email", "publish_actions"])
            try await emulator.setUserState(.permissionRevoked("publish_actions", appID: nil), userID: alice)
            let post = try await client.post("\(v)/me/feed", form: [("message", "x"), ("access_token", token)])
            #expect(post.json?["error"]?["code"]?.intValue == 200)
        }
    }

    @Test func controlAPIChangesUserStateOverHTTP() async throws {
        try await withEmulatorClient(.live) { client, emulator in
            let token = try await emulator.issueToken(userID: alice)
            let changed = try await client.postJSON("/_emulator/users/\(alice)/state", #"{"state":"passwordChanged"}"#)
            #expect(changed.status == 200)
            let reply = try await client.get("\(v)/me?access_token=\(token)")
            #expect(reply.json?["error"]?["error_subcode"]?.intValue == 460)
            let unknown = try await client.postJSON("/_emulator/users/nobody/state", #"{"state":"checkpointed"}"#)
            #expect(unknown.status == 404)
            let bad = try await client.postJSON("/_emulator/users/\(alice)/state", #"{"state":"asleep"}"#)
            #expect(bad.status == 400)
        }
    }
}
