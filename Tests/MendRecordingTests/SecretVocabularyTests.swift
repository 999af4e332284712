import Foundation
import HTTPTypes
import MendClientTesting
import MendCore
import MendHTTP
import Testing

@testable import MendRecording

/// MendCore's one secret vocabulary, as both of its policies apply it: ``Redactor`` (`<redacted>`) and the recorder
/// (`<mend:KIND:N>`); the leaks and the over-redaction issue 38 found, each a test that failed before its fix.
@Suite struct SecretVocabularyTests {
    /// A value for each kind of secret, in the shape Mend or a provider makes it.
    static let refreshToken = "mrt_b3Jr8F1xQ9vZk2LmN4pW7sT0yU6aE5cD"
    static let adminToken = "mend_admin_Q2hhbmdlTWVQbGVhc2UxMjM0NTY3ODkwYWJjZGVmZ2hp"
    static let graphToken = "EAAGm0PX4ZCpsBAKZBZAlongrandomtoken1234567890abcdef"
    static let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiIxMjM0NTYiLCJleHAiOjE5MDAwMDAwMDB9.c2lnbmF0dXJlMTIz"
    static let opaque = "Zq8vR2mN4pW7sT0yU6aE5cD1xQ9vZk2L"

    /// The recorder's redaction of free text, with a fresh placeholder table.
    static func recorded(_ text: String) -> String {
        ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable()).redact(text: text)
    }

    /// `text` with every `<mend:KIND:N>` made `<redacted>`: the recorder's output under Redactor's policy.
    static func unified(_ text: String) -> String {
        text.replacing(/<mend:[a-z0-9_.-]+:\d+>/) { _ in "<redacted>" }
    }

    @Test(
        "Redactor and the recorder treat every name of the vocabulary alike: each redacts it; only the placeholder differs"
    )
    func everyNameAlike() {
        for name in SecretVocabulary.names.sorted() {
            for text in [
                "\(name)=\(Self.opaque)", "GET /x?a=1&\(name)=\(Self.opaque)&b=2", #"{"\#(name)": "\#(Self.opaque)"}"#,
                #"{\"\#(name)\":\"\#(Self.opaque)\"}"#,
            ] {
                let redacted = Redactor.standard.redact(text: text)
                let recorded = Self.recorded(text)
                #expect(!redacted.contains(Self.opaque), "Redactor kept \(name) in \(text)")
                #expect(!recorded.contains(Self.opaque), "the recorder kept \(name) in \(text)")
                #expect(Self.unified(recorded) == redacted, "\(text): \(recorded) vs \(redacted)")
            }
        }
    }

    @Test("Redactor and the recorder treat every header and every token shape alike")
    func everyHeaderAndShapeAlike() {
        let recorder = ExchangeRedactor(rules: .standard, placeholders: PlaceholderTable())
        for header in SecretVocabulary.headers.sorted() {
            let value = header.contains("authorization") ? "Bearer \(Self.opaque)" : Self.opaque
            let redacted = Redactor.standard.redact(headerName: header, value: value)
            let recorded = recorder.redact(header: header, value: value)
            #expect(!redacted.contains(Self.opaque) && !recorded.contains(Self.opaque), "\(header)")
            if !header.contains("cookie") { #expect(Self.unified(recorded) == redacted, "\(header)") }
        }
        let shaped = [
            Self.refreshToken, Self.adminToken, Self.graphToken, Self.jwt, "123456789|\(Self.opaque)",
            "Bearer \(Self.opaque)", "DPoP \(Self.opaque)", "Basic dXNlcjpwYXNzd29yZA==",
            "postgres://mend:\(Self.opaque)@127.0.0.1:5432/mend", "k1:EdDSA:\(Self.opaque)abcdefghijk",
            "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----",
        ]
        #expect(SecretVocabulary.shapes.count <= shaped.count)
        for sample in shaped {
            let text = "seen: \(sample) (end)"
            let redacted = Redactor.standard.redact(text: text)
            let recorded = Self.recorded(text)
            #expect(redacted.contains("<redacted>") && redacted != text, "\(sample): \(redacted)")
            #expect(Self.unified(recorded) == redacted, "\(sample): \(recorded) vs \(redacted)")
            #expect(SecretVocabulary.hasShape(sample), "\(sample)")
        }
    }

    @Test("mend-server's own shapes, mrt_ refresh tokens and mend_admin_ tokens, are redacted from any text")
    func mendServerShapes() {
        // Failed before: MendCore's Redactor knew neither shape (an admin reason quoting them reached session/17,
        // the audit events and the audit log line).
        let reason = "leaked in ticket 42: \(Self.refreshToken) and \(Self.adminToken)"
        let redacted = Redactor.standard.redact(text: reason)
        #expect(!redacted.contains(Self.refreshToken) && !redacted.contains(Self.adminToken), "\(redacted)")
        #expect(redacted.hasPrefix("leaked in ticket 42: "))
        // A metric's name is not a token.
        #expect(Redactor.standard.redact(text: "mend_admin_refused_total 3") == "mend_admin_refused_total 3")
    }

    @Test("A scheme's word before a name=value pair is no credential: the pair's value is redacted by its name")
    func schemeWordBeforeAPair() {
        // Failed before (the har-redaction fuzz target): "bearer clientSecret=<hex>" took `clientSecret=` for the
        // bearer token (a token68 ends in its padding), and the value after it survived both redactions.
        for (text, secret) in [
            ("bearer clientSecret=764d55aa2eacc4a22e286f799d735f69 north", "764d55aa2eacc4a22e286f799d735f69"),
            (
                "Bearer access_token=1234567890123456%7COADGTBIHXtcK79YHOH4WHKnGAWPXsumn",
                "OADGTBIHXtcK79YHOH4WHKnGAWPXsumn"
            ),
            ("basic client_secret=ab12cd34ef56ab78cd90ef12", "ab12cd34ef56ab78cd90ef12"),
        ] {
            #expect(!Redactor.standard.redact(text: text).contains(secret), "\(Redactor.standard.redact(text: text))")
            #expect(!Self.recorded(text).contains(secret), "\(Self.recorded(text))")
        }
        // A token and its padding, at a sentence's end, are still one credential.
        #expect(!Redactor.standard.redact(text: "Bearer dXNlcjpwYXNzd29yZA==.").contains("dXNlcjpwYXNzd29yZA"))
        #expect(!Redactor.standard.redact(text: "use Bearer \(Self.opaque).").contains(Self.opaque))
    }

    @Test("Values, not prose: Graph's message about an expired session comes through the recorder unchanged")
    func prose() {
        // Failed before: "…access token: <mend:token:1> has expired."
        for message in [
            "Error validating access token: Session has expired on Thursday, 26-Nov-26 10:00:00 PST.",
            "Error validating access token: The session has been invalidated because the user changed their password.",
            "Basic information is missing.", "The OAuth provider refused the request.", "token: none given",
            "state=pending", #"{"state": "pending", "code": 190, "error": {"code": "UNAUTHENTICATED"}}"#,
        ] {
            #expect(Self.recorded(message) == message)
            #expect(Redactor.standard.redact(text: message) == message)
        }
    }

    @Test("Every message of the error catalog comes through both redactions unchanged")
    func catalogMessages() {
        for entry in ErrorCatalog.everyClientSpace.entries {
            #expect(Redactor.standard.redact(text: entry.summary) == entry.summary, "\(entry.name): \(entry.summary)")
            #expect(Self.recorded(entry.summary) == entry.summary, "\(entry.name): \(entry.summary)")
        }
        for language in MendLocalization.supportedLanguages {
            for (key, message) in MendLocalization.texts(language: language) {
                #expect(Redactor.standard.redact(text: message) == message, "\(language) \(key): \(message)")
                #expect(Self.recorded(message) == message, "\(language) \(key): \(message)")
            }
        }
    }

    @Test("The REST API key header the emulator and mend demo use is recorded as a placeholder")
    func restAPIKeyHeader() async throws {
        // Failed before: the recorder's own header list had no Appacitive-Apikey, and recorded it as it was.
        let key = "ak_Tq7Lm2Xv9Rp4Wd8Zs1Nc6Hb3Jf5Kg0Ye"
        let service = InMemoryTransport { _, _ in .json(200, #"{"ok":true}"#) }
        let file = temporaryDirectory().appendingPathComponent("rest.har")
        let recorder = try RecordingTransport(wrapping: service, file: file, mode: .all)
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: "/v1/object/x")
        request.headerFields[HTTPField.Name("Appacitive-Apikey")!] = key
        request.headerFields[HTTPField.Name("Appacitive-Session")!] = Self.opaque
        _ = try await recorder.send(request, body: nil, timeout: nil)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(key) && !text.contains(Self.opaque))
        #expect(text.contains("<mend:appacitive-apikey:1>") || text.contains("<mend:appacitive_apikey:1>"), "\(text)")
    }

    /// A browser's HAR with secrets where Chromium and proxies put them, outside the request and the response.
    static func browserHAR(padded: Bool) -> Data {
        let body = #"{"access_token":"\#(opaque)","token_type":"bearer"}"#
        var base64 = Data(body.utf8).base64EncodedString()
        #expect(base64.hasSuffix("=") || !padded)
        if !padded { base64 = base64.trimmingCharacters(in: ["="]) }
        let har: JSONValue = .object([
            "log": .object([
                "version": .string("1.2"),
                "creator": .object(["name": .string("WebInspector"), "version": .string("537.36")]),
                "pages": .array([
                    .object([
                        "id": .string("page_1"), "startedDateTime": .string("2026-11-26T10:00:00.000Z"),
                        "title": .string("http://127.0.0.1:8080/callback#access_token=\(graphToken)&state=abc"),
                        "pageTimings": .object([:]),
                    ])
                ]),
                "entries": .array([
                    .object([
                        "startedDateTime": .string("2026-11-26T10:00:00.000Z"), "time": .int(5),
                        "comment": .string("copied from the console: access_token=\(opaque)"),
                        "request": .object([
                            "method": .string("GET"), "url": .string("http://127.0.0.1:8080/socket"),
                            "httpVersion": .string("HTTP/1.1"), "headers": .array([]), "queryString": .array([]),
                            "cookies": .array([]), "headersSize": .int(-1), "bodySize": .int(0),
                        ]),
                        "response": .object([
                            "status": .int(200), "statusText": .string("OK"), "httpVersion": .string("HTTP/1.1"),
                            "headers": .array([]), "cookies": .array([]), "redirectURL": .string(""),
                            "headersSize": .int(-1), "bodySize": .int(body.utf8.count),
                            "content": .object([
                                "size": .int(body.utf8.count), "mimeType": .string("application/json"),
                                "text": .string(base64), "encoding": .string("base64"),
                            ]),
                        ]),
                        "cache": .object([:]), "timings": .object(["send": .int(0), "wait": .int(5)]),
                        "_resourceType": .string("websocket"),
                        "_webSocketMessages": .array([
                            .object([
                                "type": .string("send"), "time": .double(1.5), "opcode": .int(1),
                                "data": .string(#"{"type":"auth","token":"\#(refreshToken)"}"#),
                            ]),
                            .object([
                                "type": .string("receive"), "time": .double(1.6), "opcode": .int(1),
                                "data": .string("welcome, session \(jwt)"),
                            ]),
                        ]),
                    ])
                ]),
            ])
        ])
        return Data(har.jsonText().utf8)
    }

    @Test(
        "mend redact reaches a page's title, WebSocket messages, comments and base64 bodies, and keeps their fields",
        arguments: [true, false])
    func wholeHAR(padded: Bool) throws {
        // Failed before: the title, the WebSocket messages and a padded base64 body were written back as they were.
        let document = try HARDocument(data: Self.browserHAR(padded: padded))
        let redacted = try HARRedaction.redact(document)
        let text = redacted.json.jsonText()
        for secret in [Self.opaque, Self.graphToken, Self.refreshToken, Self.jwt] {
            #expect(!text.contains(secret))
            #expect(!text.contains(Data(secret.utf8).base64EncodedString().trimmingCharacters(in: ["="])))
        }
        let entry = try #require(redacted.entries.first)
        #expect(entry.other["_resourceType"] == .string("websocket"))
        #expect(entry.other["_webSocketMessages"]?.arrayValue?.count == 2)
        #expect(
            redacted.log.pages?.first?.title.hasPrefix("http://127.0.0.1:8080/callback#access_token=%3Cmend") == true)
        // The body is still base64, and decodes to the redacted JSON.
        #expect(entry.response.content.isBase64)
        let decoded = try #require(entry.response.content.bytes).map { Character(UnicodeScalar($0)) }
        #expect(String(decoded).contains(/"access_token":"<mend:access_token:\d+>"/), "\(String(decoded))")
    }

    @Test("A HAR read and written again keeps every field it had, known or not")
    func roundTrip() throws {
        let data = Self.browserHAR(padded: true)
        let document = try HARDocument(data: data)
        let original = try #require(try? JSONValue.parse(data).get())
        #expect(document.json == original)
        let decoded = try JSONDecoder().decode(HARDocument.self, from: data)
        #expect(decoded == document)
        let encoded = try JSONEncoder().encode(document)
        #expect(try JSONValue.parse(encoded).get() == original)
    }

    @Test("A base64 body the scan cannot read as text is refused when a secret survives in it, never passed")
    func unreadableBase64() throws {
        // A text body whose base64 padding made it look like a form was not scanned at all.
        var document = try HARDocument(data: Self.browserHAR(padded: true))
        document.entries[0].response.content.text = "not base64 at all: \(Self.opaque)=="
        document.entries[0].other = [:]
        document.log.pages = nil
        document.entries[0].comment = nil
        let redacted = try? HARRedaction.redact(document)
        if let redacted { #expect(!redacted.json.jsonText().contains(Self.opaque)) }
    }
}

/// The documents the `har-redaction` fuzz target found mishandled (Fuzz/), each kept as it was found: a leak (a
/// secret left in the output), a gap in the scan (a random string passed), or an over-refusal (prose, a URL or a
/// redacted value's public part refused). Each failed before its fix.
@Suite struct RedactionFuzzFindingTests {
    /// The fuzz harness's fake secrets (Fuzz/Sources/MendFuzzTargets/HARRedactionSecrets.swift) that these hold.
    static let secrets = [
        "mrt_D708qlqXx2TBe4WtbNWz3lXDxjoeuk4lWhSH0ValKve", "OADGTBIHXtcK79YHOH4WHKnGAWPXsumn",
        "FcGdNuGo1MxGnupD2JX2iK0x0TrxI2Oo-j4JHZSZJi8", "ETZo8e99Sk4u7KFNwFWm",
        "L6jmSFWxa93xxkHtCxx3dsZY6eSPxPsnA6ugT-1Inko",
    ]

    static var files: [String] {
        let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("fuzz")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    static func document(_ name: String) throws -> HARDocument {
        let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("fuzz")
        return try HARDocument(data: Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Every form a secret could take in the output: raw, URL-encoded, base64 (any alignment of its bytes is not
    /// needed: the output's base64 bodies are decoded), base64url.
    static func leaks(in document: HARDocument) -> [String] {
        var texts = [document.json.jsonText()]
        for entry in document.entries where entry.response.content.isBase64 {
            if let bytes = entry.response.content.bytes { texts.append(String(decoding: bytes, as: UTF8.self)) }
        }
        let text = texts.joined(separator: "\n")
        return secrets.filter { secret in
            let data = Data(secret.utf8)
            return [
                secret, FormEncoding.escape(secret), data.base64EncodedString().trimmingCharacters(in: ["="]),
                Base64URL.encode(data),
            ].contains { text.contains($0) } || text.removingPercentEncoding?.contains(secret) == true
        }
    }

    @Test(
        "Each document the fuzzer found is redacted without a leak, or refused where a random string sits",
        arguments: files)
    func finding(_ name: String) throws {
        let document = try Self.document(name)
        if name.hasPrefix("06-") {
            // A random high-entropy string in a comment or a field HAR does not define: refused, never passed.
            #expect(throws: MendError.self) { try HARRedaction.redact(document) }
        } else {
            let redacted = try HARRedaction.redact(document)
            #expect(Self.leaks(in: redacted).isEmpty, "\(name): \(Self.leaks(in: redacted).count) secrets left")
        }
    }

    @Test("A Basic credential in a fragment is decoded once: no tail of it survives")
    func fragmentDecodedOnce() throws {
        let redacted = try HARRedaction.redact(try Self.document("04-fragment-decoded-twice-basic-tail-leaks.har"))
        let title = redacted.log.pages?.first?.title ?? redacted.json.jsonText()
        #expect(!redacted.json.jsonText().contains("Sm9VRF8tWWQ"), "\(title)")
    }
}
