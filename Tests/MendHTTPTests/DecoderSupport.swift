import Foundation
import HTTPTypes
import Logging
import MendClientTesting
import MendCore
import MendHTTP

/// Builds a response for decoder tests.
func response(_ status: Int, _ headers: [(String, String)] = []) -> HTTPResponse {
    var fields = HTTPFields()
    for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    return HTTPResponse(status: .init(code: status), headerFields: fields)
}

let fixedNow = Date(timeIntervalSince1970: 1_800_000_000)

func decode(
    _ decoder: some ErrorDecoder, _ status: Int, _ body: String, headers: [(String, String)] = [],
    context: ErrorDecodingContext = ErrorDecodingContext(catalog: .everyClientSpace, now: fixedNow)
) -> MendError? {
    decoder.decodeError(response: response(status, headers), body: Data(body.utf8), context: context)
}
