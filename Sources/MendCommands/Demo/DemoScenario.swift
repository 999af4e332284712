import Foundation

/// A response that a remote API really sends when something fails, and the scenario behind it.
struct DemoScenario: Sendable {
    var title: String
    var kind: Explainer.Kind = .auto
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    // Each body follows the provider's documented wire format (or the BaaS SDK's / the GraphQL specification's).
    static let all: [DemoScenario] = [
        DemoScenario(
            title: "Graph: throttled (app rate limit, usage headers)",
            status: 403,
            headers: [
                ("X-App-Usage", #"{"call_count":100,"total_cputime":12,"total_time":15}"#),
                (
                    "X-Business-Use-Case-Usage",
                    #"{"1234":[{"type":"pages","call_count":100,"total_cputime":10,"total_time":10,"estimated_time_to_regain_access":5}]}"#
                ),
            ],
            body:
                #"{"error":{"message":"(#4) Application request limit reached","type":"OAuthException","is_transient":true,"code":4,"fbtrace_id":"Ah3kZq0tW1x"}}"#
        ),
        DemoScenario(
            title: "Graph: transient service error",
            status: 500,
            headers: [("Retry-After", "2")],
            body:
                #"{"error":{"message":"An unexpected error has occurred. Please retry your request later.","type":"OAuthException","is_transient":true,"code":2,"fbtrace_id":"B9xLw2pQr7s"}}"#
        ),
        DemoScenario(
            title: "Graph: HTML 503 from a proxy",
            kind: .graph,
            status: 503,
            headers: [("Content-Type", "text/html"), ("x-fb-trace-id", "Cq8vN4mTz2e")],
            body:
                "<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1></body></html>"
        ),
        DemoScenario(
            title: "Graph: token expired",
            status: 400,
            headers: [
                ("WWW-Authenticate", #"OAuth "Facebook Platform" "invalid_token" "Error validating access token""#)
            ],
            body:
                #"{"error":{"message":"Error validating access token: Session has expired on Friday, 20-Nov-26 10:00:00 PST.","type":"OAuthException","code":190,"error_subcode":463,"fbtrace_id":"D1rTy6uIo9p"}}"#
        ),
        DemoScenario(
            title: "Graph: password changed",
            status: 400,
            headers: [],
            body:
                #"{"error":{"message":"Error validating access token: The session has been invalidated because the user changed their password.","type":"OAuthException","code":190,"error_subcode":460,"fbtrace_id":"E2sUz7vJp0q"}}"#
        ),
        DemoScenario(
            title: "Graph: missing permission",
            status: 403,
            headers: [],
            body:
                #"{"error":{"message":"(#200) Requires extended permission: publish_to_groups","type":"OAuthException","code":200,"fbtrace_id":"F3tVa8wKq1r"}}"#
        ),
        DemoScenario(
            title: "Graph: duplicate post",
            status: 400,
            headers: [],
            body:
                #"{"error":{"message":"(#506) Duplicate status message","type":"OAuthException","code":506,"error_user_title":"Duplicate Post","error_user_msg":"You already posted this.","fbtrace_id":"G4uWb9xLr2s"}}"#
        ),
        DemoScenario(
            title: "GraphQL: partial result",
            status: 200,
            headers: [],
            body:
                #"{"data":{"me":{"name":"Ada","friends":[{"name":"Grace"},null]}},"errors":[{"message":"Not authorized to read this friend","locations":[{"line":1,"column":20}],"path":["me","friends",1],"extensions":{"code":"FORBIDDEN"}}]}"#
        ),
        DemoScenario(
            title: "REST: revision conflict",
            status: 409,
            headers: [],
            body:
                #"{"status":{"code":"409","message":"The object was updated by someone else (revision 4, expected 3).","referenceid":"8f14e45f-ea1c","additionalmessages":["__revision: expected 3, found 4"]}}"#
        ),
        DemoScenario(
            title: "Any API: truncated JSON",
            status: 200,
            headers: [],
            body: #"{"data":[{"id":"1","name":"Ad"#),
    ]
}
