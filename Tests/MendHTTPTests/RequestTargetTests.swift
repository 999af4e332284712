import Foundation
import HTTPTypes
import Testing

@testable import MendHTTP

/// `APIRequest(method:url:)` splits the URL's text itself (HTTPTypes parses it a second time on Linux): the request's
/// scheme, authority and path must be HTTPTypes' own for every URL.
@Suite("The request's target from its URL")
struct RequestTargetTests {
    static let urls: [String] = [
        "https://graph.example.com/v25.0/me?fields=id,name&access_token=abc",
        "http://127.0.0.1:8080/me?fields=id,name,email",
        "http://127.0.0.1:8080", "http://127.0.0.1:8080/", "http://127.0.0.1:8080?x=1", "http://h/p?",
        "http://h/p#frag",
        "http://h/p?q=1#frag", "http://h#frag", "http://h/a%20b?c=%2F", "HTTPS://Example.COM/Path", "http://h:/p",
        "http://[::1]:8080/v1/session", "http://user:pass@example.com/p", "http://user@example.com:81/p",
        "https://example.com/a/../b/./c", "https://example.com//double//slash", "https://example.com/p;params?q",
        "https://xn--nxasmq6b.example/p", "https://example.com/ü?q=ä", "https://example.com/p?q=a b",
        "http://127.0.0.1:1/_emulator/faults?path=/v1/%7Bid%7D", "https://example.com:443/",
        "custom+scheme.x-1://host/p",
    ]

    @Test("Every URL's scheme, authority and path are HTTPTypes' own")
    func sameAsHTTPTypes() throws {
        for text in Self.urls {
            guard let url = URL(string: text) else { continue }
            let ours = APIRequest(method: .get, url: url).head
            let theirs = HTTPRequest(method: .get, url: url)
            #expect(ours.scheme == theirs.scheme, "\(text)")
            #expect(ours.authority == theirs.authority, "\(text)")
            #expect(ours.path == theirs.path, "\(text)")
        }
    }

    @Test("The split takes the fast way for plain URLs and leaves the others to HTTPTypes")
    func splitsPlainURLsOnly() throws {
        let plain = try #require(HTTPRequest.split("http://127.0.0.1:8080/me?x=1#f"))
        #expect(plain.scheme == "http" && plain.authority == "127.0.0.1:8080" && plain.path == "/me?x=1")
        #expect(HTTPRequest.split("http://h?x=1")?.path == "/?x=1")
        for other in [
            "http://[::1]/", "http://u@h/", "http://h%41/", "mailto:a@b", "http:/h", "://h/", "http://", "h/p",
            "http://h:/p",
        ] {
            #expect(HTTPRequest.split(other) == nil, "\(other)")
        }
    }
}
