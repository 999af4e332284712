import Foundation
import MendCore

/// Redacts the values of sensitive query parameters (`access_token`, `code`, `client_secret`, …) in a path.
enum QueryRedaction {
    static func redact(path: String) -> String {
        guard let questionMark = path.firstIndex(of: "?") else { return path }
        let base = path[..<questionMark]
        let query = path[path.index(after: questionMark)...]
        let redactor = Redactor.standard
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            let value = String(item[item.index(after: equals)...])
            let decodedName = name.removingPercentEncoding ?? name
            if decodedName.lowercased() == "code" || redactor.isSensitive(key: decodedName, value: .string(value)) {
                return "\(name)=\(Redactor.placeholder)"
            }
            return "\(name)=\(redactor.redact(text: value))"
        }
        return base + "?" + items.joined(separator: "&")
    }
}
