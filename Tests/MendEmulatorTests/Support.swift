import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MendCore
import MendEmulator
import NIOCore
import Testing

/// How a test reaches the emulator.
enum Mode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `Emulator.handle` directly (no HTTP).
    case direct
    /// HummingbirdTesting's router mode (no sockets).
    case router
    /// HummingbirdTesting's live mode (a real socket on port 0).
    case live

    var testDescription: String { rawValue }
}

/// A response as tests see it.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPFields
    var body: Data

    var json: JSONValue? {
        if case .success(let value) = JSONValue.parse(body) { return value }
        return nil
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }
}

/// Sends requests to the emulator in one of the modes.
struct Client: Sendable {
    let send: @Sendable (HTTPRequest.Method, String, HTTPFields, Data?) async throws -> Reply

    func get(_ target: String, headers: HTTPFields = [:]) async throws -> Reply {
        try await send(.get, target, headers, nil)
    }

    func post(_ target: String, form: [(String, String)], headers: HTTPFields = [:]) async throws -> Reply {
        var fields = headers
        fields[.contentType] = "application/x-www-form-urlencoded"
        return try await send(.post, target, fields, Data(Form.encode(form).utf8))
    }

    func postJSON(_ target: String, _ json: String, headers: HTTPFields = [:]) async throws -> Reply {
        var fields = headers
        fields[.contentType] = "application/json"
        return try await send(.post, target, fields, Data(json.utf8))
    }

    func delete(_ target: String) async throws -> Reply {
        try await send(.delete, target, [:], nil)
    }
}

enum Form {
    static let allowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    static func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed)! }
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            result[String(parts[0]).removingPercentEncoding!] = value.removingPercentEncoding ?? value
        }
        return result
    }
}

/// Runs `body` against a fresh emulator in `mode`.
func withEmulatorClient(
    _ mode: Mode, configuration: EmulatorConfiguration = testConfiguration(),
    _ body: @escaping @Sendable (Client, Emulator) async throws -> Void
) async throws {
    let emulator = Emulator(configuration: configuration)
    switch mode {
    case .direct:
        let client = Client { method, target, headers, data in
            let answer = await emulator.handle(
                EmulatorRequest(method: method, target: target, headers: headers, body: data ?? Data()))
            return Reply(status: answer.status.code, headers: answer.headers, body: answer.body)
        }
        try await body(client, emulator)
    case .router, .live:
        // Hummingbird's Application needs macOS 14, iOS 17 or tvOS 17.
        guard #available(macOS 14, iOS 17, tvOS 17, *) else { throw EmulatorTestError.requiresNewerSystem }
        let app = buildApplication(emulator: emulator)
        try await app.test(mode == .router ? .router : .live) { testClient in
            let client = Client { method, target, headers, data in
                let response = try await testClient.execute(
                    uri: target, method: method, headers: headers, body: data.map { ByteBuffer(bytes: $0) })
                return Reply(
                    status: response.status.code, headers: response.headers, body: Data(response.body.readableBytesView)
                )
            }
            try await body(client, emulator)
        }
    }
}

/// A frozen clock at a fixed start: fully deterministic.
func testConfiguration(
    apps: [EmulatedApp] = [.default], autoConsent: AutoConsent = .manual, testMode: Bool = true
) -> EmulatorConfiguration {
    EmulatorConfiguration(
        seed: 7, testMode: testMode, apps: apps, autoConsent: autoConsent,
        startTime: Date(timeIntervalSince1970: 1_767_225_600), clockMode: .frozen)
}

let alice = "100000000000001"
let bob = "100000000000002"
let carol = "100000000000003"
let appID = EmulatedApp.default.id
let appSecret = EmulatedApp.default.secret
let v = "/v25.0"

/// A PKCE verifier and its S256 challenge.
struct PKCE {
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  // RFC 7636 appendix B
}

extension Client {
    /// Runs the login dialog with auto-consent-free form submission; returns the redirect's Location.
    func login(
        scope: String = "public_profile,email", responseType: String = "code granted_scopes",
        redirectURI: String = "http://127.0.0.1:5555/callback", state: String = "st4te", grant: [String]? = nil,
        extra: [(String, String)] = [], user: String = alice
    ) async throws -> String {
        let query = Form.encode(
            [
                ("client_id", appID), ("redirect_uri", redirectURI), ("response_type", responseType), ("scope", scope),
                ("state", state),
            ] + extra)
        let page = try await get("\(v)/dialog/oauth?\(query)")
        guard page.status == 200, let dialogID = ConsentForm.value(of: "dialog_id", in: page.text) else {
            throw TestFailure("the dialog did not show a consent page: \(page.status) \(page.text.prefix(300))")
        }
        let scopes = grant ?? scope.split(separator: ",").map(String.init)
        var form: [(String, String)] = [("dialog_id", dialogID), ("user_id", user), ("decision", "continue")]
        form += scopes.map { ("scope_\($0)", "1") }
        let answer = try await post("\(v)/dialog/oauth/confirm", form: form)
        guard answer.status == 302, let location = answer.header("location") else {
            throw TestFailure("the consent did not redirect: \(answer.status) \(answer.text.prefix(300))")
        }
        return location
    }

    /// Logs in and exchanges the code with the app secret; returns the access token.
    func loginToken(scope: String = "public_profile,email", user: String = alice) async throws -> String {
        let location = try await login(scope: scope, user: user)
        let code = try #require(Redirect.query(location)["code"])
        let reply = try await get(
            "\(v)/oauth/access_token?"
                + Form.encode([
                    ("client_id", appID), ("client_secret", appSecret), ("code", code),
                    ("redirect_uri", "http://127.0.0.1:5555/callback"),
                ]))
        return try #require(reply.json?["access_token"]?.stringValue)
    }
}

enum ConsentForm {
    /// The value of a hidden input in the consent page.
    static func value(of name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

enum Redirect {
    static func query(_ location: String) -> [String: String] {
        guard let components = URLComponents(string: location) else { return [:] }
        return Form.decode(components.percentEncodedQuery ?? "")
    }
    static func fragment(_ location: String) -> [String: String] {
        guard let components = URLComponents(string: location) else { return [:] }
        return Form.decode(components.percentEncodedFragment ?? "")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Why an emulator test could not run.
enum EmulatorTestError: Error {
    /// Hummingbird's `Application` needs macOS 14, iOS 17 or tvOS 17.
    case requiresNewerSystem
}
