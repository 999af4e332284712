public import Foundation
public import HTTPTypes
import MendCore

/// A request as the emulator's handlers see it: independent of the HTTP server, so that batch items and tests use
/// the same handlers.
public struct EmulatorRequest: Sendable {
    /// The method (`GET`, `POST`, `DELETE`, …).
    public var method: HTTPRequest.Method
    /// The path, without the query (`/v25.0/me`).
    public var path: String
    /// The raw query, without `?`.
    public var rawQuery: String
    /// The headers.
    public var headers: HTTPFields
    /// The body.
    public var body: Data
    /// The scheme and authority that the client used (`http://127.0.0.1:8080`), for absolute URLs in responses.
    public var baseURL: String

    /// The query parameters (the last value wins for a repeated name).
    public let query: [String: String]
    /// The form parameters of an `application/x-www-form-urlencoded` body, or a JSON object's string members.
    public let form: [String: String]

    /// Creates a request.
    public init(
        method: HTTPRequest.Method, path: String, rawQuery: String = "", headers: HTTPFields = [:],
        body: Data = Data(), baseURL: String = "http://127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.baseURL = baseURL
        self.query = FormEncoding.decode(rawQuery)
        self.form = Self.formParameters(body: body, contentType: headers[.contentType])
    }

    /// A request from a target (`/v25.0/me?fields=id`), splitting off the query.
    public init(
        method: HTTPRequest.Method, target: String, headers: HTTPFields = [:], body: Data = Data(),
        baseURL: String = "http://127.0.0.1"
    ) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(
            method: method, path: String(parts[0]), rawQuery: parts.count > 1 ? String(parts[1]) : "",
            headers: headers, body: body, baseURL: baseURL)
    }

    /// A parameter from the query or, failing that, the form body.
    public func parameter(_ name: String) -> String? {
        query[name] ?? form[name]
    }

    /// The access token: the `access_token` parameter or the `Authorization: Bearer|OAuth` header.
    public var accessToken: String? {
        if let token = parameter("access_token"), !token.isEmpty { return token }
        guard let authorization = headers[.authorization] else { return nil }
        for scheme in ["Bearer ", "OAuth ", "bearer ", "oauth "] where authorization.hasPrefix(scheme) {
            return String(authorization.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The access token of the `Authorization` header, and whether its scheme is `DPoP` (RFC 9449 §7.1) rather than
    /// `Bearer`; else ``accessToken``'s other places (the `access_token` parameter, `OAuth`).
    var presentedAccessToken: (token: String, isDPoP: Bool)? {
        if let authorization = headers[.authorization], authorization.count > 5,
            authorization.prefix(5).lowercased() == "dpop "
        {
            let token = authorization.dropFirst(5).trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : (token, true)
        }
        return accessToken.map { ($0, false) }
    }

    /// HTTP Basic client credentials (RFC 6749 §2.3.1), when the `Authorization` header uses the Basic scheme.
    enum BasicCredentials: Sendable, Hashable {
        /// The client id and secret, form-decoded.
        case valid(clientID: String, secret: String)
        /// A Basic header that is not `base64(id:secret)`.
        case malformed
    }

    /// The `Authorization: Basic base64(urlencode(client_id):urlencode(client_secret))` credentials, if the header
    /// uses the Basic scheme; `nil` without one.
    var basicCredentials: BasicCredentials? {
        guard let authorization = headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else {
            return parts.first?.lowercased() == "basic" ? .malformed : nil
        }
        guard let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return .malformed }
        let clientID = FormEncoding.unescape(text[..<colon])
        let secret = FormEncoding.unescape(text[text.index(after: colon)...])
        guard !clientID.isEmpty else { return .malformed }
        return .valid(clientID: clientID, secret: secret)
    }

    /// The path's segments, without empty ones.
    public var segments: [String] {
        path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
    }

    private static func formParameters(body: Data, contentType: String?) -> [String: String] {
        guard !body.isEmpty else { return [:] }
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [:] }
            var form: [String: String] = [:]
            for (key, value) in object {
                if let text = value as? String {
                    form[key] = text
                } else if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                    form[key] = String(decoding: data, as: UTF8.self)
                }
            }
            return form
        }
        if type.isEmpty || type.contains("x-www-form-urlencoded") {
            return FormEncoding.decode(String(decoding: body, as: UTF8.self))
        }
        return [:]
    }
}
