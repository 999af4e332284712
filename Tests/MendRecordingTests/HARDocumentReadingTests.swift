import Foundation
import MendCore
import Testing

@testable import MendRecording

/// A file that is not a HAR is refused with what is wrong with it, not one message for every case (issue 39).
@Suite struct HARDocumentReadingTests {
    @Test(
        "Each malformed input says what is wrong",
        arguments: [
            ("", "the file is empty"),
            ("   \n", "the file is empty"),
            ("<!DOCTYPE html><html>", "it is not JSON (a HAR file is a JSON object with a log)"),
            (
                #"{"log":{"entries":[{"request":{"url":"https://a.example/"#,
                "its JSON is cut off after 56 bytes (an unfinished string, object or array)"
            ),
            (#"{"log":{"entries":[]}} trailing"#, "its JSON is invalid"),
            ("[1,2]", #"its top level is an array, not an object with a "log""#),
            ("{}", #"it has no "log" object (it is an empty object)"#),
            (#"{"version":"1.2","entries":[]}"#, #"it has no "log" object (its fields are "entries", "version")"#),
            (#"{"log":"x"}"#, #"its "log" is a string, not an object"#),
            (#"{"log":{"version":"1.2"}}"#, #"its "log" has no "entries" array"#),
            (#"{"log":{"entries":{}}}"#, #"its "log.entries" is an object, not an array"#),
        ])
    func malformed(input: String, problem: String) throws {
        let refused = #expect(throws: MendError.self) { try HARDocument(data: Data(input.utf8)) }
        #expect(refused?.code == .Transport.recordingRefused)
        #expect(refused?.developerMessage == "Not a HAR file: \(problem).", "\(input)")
    }

    @Test("A Decoder's reading says the same")
    func decoder() throws {
        let refused = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(HARDocument.self, from: Data(#"{"log":{"version":"1.2"}}"#.utf8))
        }
        guard case .dataCorrupted(let context)? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
        #expect(context.debugDescription == #"Not a HAR file: its "log" has no "entries" array."#)
    }
}
