import Foundation
import HTTPTypes
import MendCore
import MendGraphAPI
import MendHTTP
import MendLogin
import Testing

@testable import MendServer

/// A failure's HTTP status is decided in one place, `ServerFailure.status(for:origin:)`; the route table documents
/// what it decides.
@Suite struct FailureStatusTests {
    /// The server's own refusals, by the code each carries.
    static let serverFailures: [(ServerFailure, Int)] = [
        (.badRequest("x"), 400), (.notFound("x"), 404), (.internalFailure("x"), 500), (.storageUnavailable("x"), 503),
        (.session(.Session.accessTokenMissing, "x"), 401), (.sessionEnded(.loggedOut), 401),
        (.rateLimited(retryAfter: 3, scope: "x", now: .now), 429),
        (ServerFailure(MendError(code: .Login.invalidIDToken, catalog: .server)), 401),
        (ServerFailure(MendError(code: .REST.accessDenied, catalog: .server)), 401),
        (ServerFailure(MendError(code: .REST.updateConflict, catalog: .server)), 409),
        (ServerFailure(MendError(code: .HTTP.methodNotAllowed, catalog: .server)), 405),
        (ServerFailure(MendError(code: .HTTP.contentTooLarge, catalog: .server)), 413),
        (ServerFailure(MendError(code: .Graph.invalidParameter, catalog: .server)), 400),
    ]

    /// A provider's failures the server carries, by the status that agrees with their classification.
    static let providerFailures: [(ServerFailure, Int)] = [
        (.upstream(MendError(code: .Transport.timedOut, catalog: .server), operation: "x"), 504),
        (.upstream(MendError(code: .Transport.cannotConnect, catalog: .server), operation: "x"), 502),
        (.upstream(MendError(code: .HTTP.serviceUnavailable, catalog: .server), operation: "x"), 502),
        (.upstream(MendError(code: .OAuth.invalidGrant, catalog: .server), operation: "x"), 400),
        (.upstream(MendError(code: .Graph.serviceUnavailable, catalog: .server), operation: "x"), 503),
        (.upstream(MendError(code: .Graph.accessTokenInvalid, catalog: .server), operation: "x"), 401),
        (.upstream(MendError(code: .Graph.permissionDenied, catalog: .server), operation: "x"), 403),
    ]

    @Test func eachFailureGetsItsStatus() {
        for (failure, status) in Self.serverFailures + Self.providerFailures {
            #expect(failure.status.code == status, "\(failure.error.shortDescription) (\(failure.origin))")
        }
    }

    @Test func theRouteTableDocumentsWhatTheStatusesAre() {
        // Every failure status a route documents is one the policy gives; every one it gives is documented somewhere
        // (405 is every route's, for another method, and documented apart).
        let given = Set((Self.serverFailures + Self.providerFailures).map(\.0.status.code))
        let documented = Set(RouteTable.all.flatMap(\.errorStatuses))
        #expect(documented.subtracting(given).isEmpty, "documented, never given: \(documented.subtracting(given))")
        #expect(given.subtracting(documented) == [405], "given, never documented: \(given.subtracting(documented))")
    }

    @Test func aFailureIsRedactedOnce() {
        let redactor = Redactor.standard.adding(secrets: ["app-secret-value"])
        let failure = ServerFailure.upstream(
            MendError(code: .Graph.accessTokenInvalid, developerMessage: "echoes app-secret-value", catalog: .server),
            operation: "x")
        #expect(!failure.isRedacted)
        let once = failure.redacted(with: redactor)
        #expect(once.isRedacted)
        #expect(!once.error.developerMessage.contains("app-secret-value"))
        // A second pass changes nothing, even with another redactor.
        let twice = once.redacted(with: Redactor.standard.adding(secrets: ["echoes"]))
        #expect(twice.error.developerMessage == once.error.developerMessage)
    }
}
