import AsyncHTTPClient
public import Foundation
import MendCore
import MendHTTPAsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A headless browser for a login dialog's consent page: it loads the page, reads its form as a browser would
/// (hidden inputs, checked checkboxes, the selected option), ticks or unticks permissions, presses Continue or
/// Cancel, and follows the redirect — to a loopback receiver, say — with a real HTTP request.
///
/// It works with any HTML form of the same kind, and is what `mend demo` and the login tests use to answer the
/// emulator's consent page without a browser.
public struct HeadlessConsentBrowser: Sendable {
    /// What the user does on the page.
    public enum Decision: Sendable, Hashable {
        /// Continue with every permission ticked.
        case grantAll
        /// Continue, unticking these permissions.
        case decline([String])
        /// Press Cancel.
        case cancel
    }

    /// The decision.
    public var decision: Decision
    /// The user to continue as (the `user_id` select), or the page's default.
    public var userID: String?

    /// Creates a browser that will make `decision`.
    public init(decision: Decision = .grantAll, userID: String? = nil) {
        self.decision = decision
        self.userID = userID
    }

    /// Why the page could not be answered.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong.
        public var description: String
    }

    /// A client that does not follow redirects (the browser follows them itself, to see each step), and is not
    /// traced: it stands for the person's browser, which no trace of the app's reaches (AsyncHTTPClient's own spans
    /// would also record the dialog's query: state, nonce and the PKCE challenge).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        // A refused connection fails at once, as the app's own client does (not retried until the timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// `scheme://host:port` of `url`: where a connection failed (never its query: the dialog's state and challenge).
    static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return "the dialog's server" }
        return "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
    }

    /// Loads `url`, answers the consent page, and returns where the dialog redirected (not yet followed). A dialog
    /// that redirects at once, without a page (`mend emulate --auto-consent`, or a provider whose user consented
    /// before), has decided already: its redirect is returned, as a browser would follow it.
    public func answer(_ url: URL) async throws -> String {
        let page = try await get(url.absoluteString)
        if (300..<400).contains(page.status), let location = page.location { return location }
        guard page.status == 200 else {
            throw Failure(description: "the dialog answered \(page.status): \(page.body.prefix(200))")
        }
        let form = try ConsentForm.parse(page.body, base: url)
        var fields = form.hiddenFields
        if let userID { fields.removeAll { $0.0 == "user_id" }; fields.append(("user_id", userID)) }
        switch decision {
        case .cancel:
            fields.append(("decision", "cancel"))
        case .grantAll:
            fields += form.checkedBoxes.map { ($0, "1") }
            fields.append(("decision", "continue"))
        case .decline(let permissions):
            fields += form.checkedBoxes.filter { name in !permissions.contains { "scope_\($0)" == name } }.map {
                ($0, "1")
            }
            fields.append(("decision", "continue"))
        }
        var request = HTTPClientRequest(url: form.action)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(request, timeout: .seconds(30))
        } catch {
            throw AsyncHTTPClientTransport.map(error, target: Self.origin(request.url))
        }
        _ = try await response.body.collect(upTo: 1 << 20)
        guard (300..<400).contains(Int(response.status.code)), let location = response.headers.first(name: "location")
        else { throw Failure(description: "the consent form did not redirect (status \(response.status.code))") }
        return location
    }

    /// Answers the consent page at `url`, then follows the redirect with a GET (as the browser would), delivering
    /// it to whatever listens there (a loopback receiver).
    public func open(_ url: URL) async throws {
        let location = try await answer(url)
        guard location.hasPrefix("http://") || location.hasPrefix("https://") else { return }
        _ = try await get(location)
    }

    private func get(_ url: String) async throws -> (status: Int, body: String, location: String?) {
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        } catch {
            // Classified as the app's own requests are: a refused connection is transport/12, with where.
            throw AsyncHTTPClientTransport.map(error, target: Self.origin(url))
        }
        let body = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers.first(name: "location"))
    }
}

/// The parts of a consent form a browser submits.
enum ConsentForm {
    struct Parsed {
        var action: String
        var hiddenFields: [(String, String)]
        var checkedBoxes: [String]
    }

    static func parse(_ html: String, base: URL) throws -> Parsed {
        guard let formTag = firstMatch(#"<form[^>]*>"#, in: html), let action = attribute("action", in: formTag) else {
            throw HeadlessConsentBrowser.Failure(description: "the page has no form")
        }
        var hidden: [(String, String)] = []
        var boxes: [String] = []
        for tag in allMatches(#"<input[^>]*>"#, in: html) {
            guard let name = attribute("name", in: tag) else { continue }
            let type = attribute("type", in: tag) ?? "text"
            if type == "hidden" {
                hidden.append((name, attribute("value", in: tag) ?? ""))
            } else if type == "checkbox", tag.contains(" checked"), !tag.contains(" disabled") {
                boxes.append(name)
            }
        }
        if let select = firstMatch(#"<select[^>]*name="user_id"[^>]*>[\s\S]*?</select>"#, in: html) {
            let selected =
                firstMatch(#"<option[^>]*selected[^>]*>"#, in: select) ?? firstMatch(#"<option[^>]*>"#, in: select)
            if let selected, let value = attribute("value", in: selected) { hidden.append(("user_id", value)) }
        }
        let resolved = URL(string: unescape(action), relativeTo: base)?.absoluteURL.absoluteString ?? action
        return Parsed(action: resolved, hiddenFields: hidden, checkedBoxes: boxes)
    }

    private static func attribute(_ name: String, in tag: String) -> String? {
        firstCapture(#"\s\#(name)="([^"]*)""#, in: tag).map(unescape)
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    private static func firstMatch(_ pattern: String, in text: String) -> String? {
        allMatches(pattern, in: text).first
    }

    private static func allMatches(_ pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else {
            return []
        }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.matches(in: text, range: range).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    private static func firstCapture(_ pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
            let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }
}
