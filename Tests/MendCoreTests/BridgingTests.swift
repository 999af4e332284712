import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendGraphAPI
import MendHTTP
import MendLogin
import Testing

@Suite("NSError bridging")
struct BridgingTests {
    static func sampleError() -> MendError {
        var error = MendError(
            code: .Graph.accessTokenInvalid, subcode: .tokenExpired, developerMessage: "Session has expired",
            catalog: .everyClientSpace)
        error.referenceID = "AbCdEf123"
        error.httpStatus = 400
        error.response?.json = .object(["error": .object(["code": .int(190), "error_subcode": .int(463)])])
        error.additionalMessages = ["field: detail"]
        error.attempts = 2
        error.serverUserMessage = "Your session expired."
        return error
    }

    @Test("The bridged NSError carries Mend's keys; MendGraphAPI's vendor-SDK form adds the vendor SDK's")
    func userInfoKeys() throws {
        let plain = Self.sampleError() as NSError
        #expect(plain.userInfo[MendError.UserInfoKey.category] as? String == "recoverable")
        #expect(plain.userInfo[MendError.UserInfoKey.subcode] as? Int == 463)
        #expect(plain.userInfo[MendError.UserInfoKey.httpStatus] as? Int == 400)
        #expect(plain.userInfo["com.facebook.sdk:FBSDKErrorDeveloperMessageKey"] == nil)
        let nsError = Self.sampleError().vendorSDKNSError
        #expect(nsError.domain == "dev.mend")
        #expect(nsError.code == 190)
        let info = nsError.userInfo
        #expect(info["com.facebook.sdk:FBSDKErrorDeveloperMessageKey"] as? String == "Session has expired")
        #expect(info["com.facebook.sdk:FBSDKErrorLocalizedTitleKey"] as? String != nil)
        #expect(info["com.facebook.sdk:FBSDKErrorLocalizedDescriptionKey"] as? String == "Your session expired.")
        #expect(info["com.facebook.sdk:FBSDKGraphRequestErrorKey"] as? Int == 2)
        #expect(info["com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorCodeKey"] as? Int == 190)
        #expect(info["com.facebook.sdk:FBSDKGraphRequestErrorGraphErrorSubcodeKey"] as? Int == 463)
        #expect(info["com.facebook.sdk:FBSDKGraphRequestErrorHTTPStatusCodeKey"] as? Int == 400)
        let json = try #require(info["com.facebook.sdk:FBSDKGraphRequestErrorParsedJSONResponseKey"] as? [String: Any])
        #expect((json["error"] as? [String: Any])?["code"] as? Int == 190)
        #expect(info[MendError.UserInfoKey.domain] as? String == "graph")
        #expect(info[MendError.UserInfoKey.referenceID] as? String == "AbCdEf123")
        #expect(info[NSLocalizedDescriptionKey] as? String == "Your session expired.")
        #expect(nsError.localizedDescription == "Your session expired.")
        #expect((info[NSLocalizedRecoveryOptionsErrorKey] as? [String])?.isEmpty == false)
    }

    @Test("domain, code and userInfo survive a round trip through a plain NSError")
    func roundTrip() throws {
        let original = Self.sampleError()
        let bridged = original as NSError
        // A fresh NSError, as one arriving from Objective-C code or an archive would be.
        let plain = NSError(domain: bridged.domain, code: bridged.code, userInfo: bridged.userInfo)
        let restored = try #require(MendError(bridging: plain, catalog: .everyClientSpace))
        #expect(restored == original)
        #expect(restored.domain == .graph)
        #expect(restored.code == .Graph.accessTokenInvalid)
        #expect(restored.subcode == .tokenExpired)
        #expect(restored.category == .recoverable)
        #expect(restored.recovery.action == .reauthenticate)
        #expect(restored.referenceID == "AbCdEf123")
        #expect(restored.httpStatus == 400)
        #expect(restored.response?.json == original.response?.json)
        #expect(restored.additionalMessages == ["field: detail"])
        #expect(restored.attempts == 2)
        #expect(restored.developerMessage == "Session has expired")
        #expect(restored.serverUserMessage == "Your session expired.")
    }

    @Test("A request for less data keeps its row, category and action through the bridge")
    func reduceDataRoundTrip() throws {
        let body = Data(
            #"""
            {"error":{"message":"An unknown error occurred","type":"OAuthException","code":1,
             "error_user_msg":"Please reduce the amount of data you're asking for, then retry your request"}}
            """#.utf8)
        let original = try #require(
            GraphErrorDecoder().decodeError(
                response: HTTPResponse(status: .internalServerError), body: body,
                context: ErrorDecodingContext(catalog: .everyClientSpace)))
        #expect(original.name == "reduceData")
        let bridged = original as NSError
        let plain = NSError(domain: bridged.domain, code: bridged.code, userInfo: bridged.userInfo)
        let restored = try #require(MendError(bridging: plain, catalog: .everyClientSpace))
        #expect(restored.name == "reduceData")
        #expect(restored.category == .recoverable)
        #expect(restored.recovery.action == .reduceRequestSize)
        #expect(!restored.isAutomaticallyRetryable)
    }

    @Test("Every login code keeps its domain through the bridge", arguments: 300...310)
    func loginCodes(code: Int) throws {
        let error = MendError(code: MendError.Code(.login, code), catalog: .everyClientSpace)
        let plain = NSError(
            domain: (error as NSError).domain, code: (error as NSError).code, userInfo: (error as NSError).userInfo)
        let restored = try #require(MendError(bridging: plain, catalog: .everyClientSpace))
        #expect(restored.code == MendError.Code(.login, code))
        #expect(restored.category == error.category)
    }

    @Test("Foreign NSErrors are not Mend errors")
    func foreignErrors() {
        #expect(MendError(bridging: NSError(domain: NSURLErrorDomain, code: -1009), catalog: .everyClientSpace) == nil)
        #expect(MendError(bridging: NSError(domain: "dev.mend", code: 1), catalog: .everyClientSpace) == nil)
        #expect(MendError(bridging: CancellationError(), catalog: .everyClientSpace) == nil)
    }

    @Test("Equality is by identity: domain, code and subcode")
    func equality() {
        var a = MendError(code: .Graph.accessTokenInvalid, subcode: .tokenExpired, catalog: .everyClientSpace)
        let b = MendError(
            code: .Graph.accessTokenInvalid, subcode: .tokenExpired, developerMessage: "other text",
            catalog: .everyClientSpace)
        a.referenceID = "x"
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != MendError(code: .Graph.accessTokenInvalid, subcode: .passwordChanged, catalog: .everyClientSpace))
        #expect(
            MendError(code: .REST.notFound, catalog: .everyClientSpace)
                != MendError(code: .HTTP.notFound, catalog: .everyClientSpace))
        #expect(a.matches(.Graph.accessTokenInvalid))
        #expect(a.matches(.Graph.accessTokenInvalid, .tokenExpired))
        #expect(!a.matches(.Graph.accessTokenInvalid, .passwordChanged))
    }
}
