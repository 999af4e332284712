package import Foundation
package import HTTPTypes

extension HTTPRequest {
    /// A request for `url`, its scheme, authority and path (with the query, without the fragment) taken from the URL's
    /// text as written.
    ///
    /// The same as HTTPTypes' `init(method:url:headerFields:)` for every URL a client sends, at a fraction of its cost:
    /// on Linux that one parses the URL a second time (`URLComponents`) and copies each part through an array. An
    /// authority with user information or an IP-literal host, or a URL without `//`, goes the HTTPTypes way, which
    /// knows them.
    package init(method: Method, target url: URL, headerFields: HTTPFields) {
        if let parts = Self.split(url.absoluteString) {
            self.init(
                method: method, scheme: parts.scheme, authority: parts.authority, path: parts.path,
                headerFields: headerFields)
        } else {
            self.init(method: method, url: url, headerFields: headerFields)
        }
    }

    /// `scheme://authority/path?query#fragment` split into its scheme, its authority and its request target (`/` when
    /// the path is empty); `nil` for anything else.
    package static func split(_ text: String) -> (scheme: String, authority: String, path: String)? {
        var text = text
        return text.withUTF8 { bytes -> (scheme: String, authority: String, path: String)? in
            let count = bytes.count
            var index = 0
            scheme: while index < count {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    index += 1
                case UInt8(ascii: ":"): break scheme
                default: return nil
                }
            }
            let colon = index
            guard colon > 0, colon + 2 < count, bytes[colon + 1] == UInt8(ascii: "/"),
                bytes[colon + 2] == UInt8(ascii: "/")
            else { return nil }
            let authorityStart = colon + 3
            index = authorityStart
            authority: while index < count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break authority
                // User information, IP literals, escapes: HTTPTypes' parser knows what to keep of them.
                case UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "%"): return nil
                default: index += 1
                }
            }
            // An empty host or port (`http://h:/`): HTTPTypes drops the colon.
            guard index > authorityStart, bytes[index - 1] != UInt8(ascii: ":") else { return nil }
            let authorityEnd = index
            while index < count, bytes[index] != UInt8(ascii: "#") { index += 1 }
            let targetEnd = index
            func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
            let path: String
            if authorityEnd == targetEnd {
                path = "/"
            } else if bytes[authorityEnd] == UInt8(ascii: "/") {
                path = string(authorityEnd..<targetEnd)
            } else {
                path = "/" + string(authorityEnd..<targetEnd)
            }
            return (string(0..<colon), string(authorityStart..<authorityEnd), path)
        }
    }
}
