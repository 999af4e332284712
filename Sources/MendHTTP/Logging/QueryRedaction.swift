import Foundation
import MendCore

/// Redacts the values of sensitive query parameters (`access_token`, `code`, `client_secret`, …) in a path.
package enum QueryRedaction {
    /// `path` with the values of its sensitive query parameters replaced by `placeholder`.
    package static func redact(path: String, placeholder: String = Redactor.placeholder) -> String {
        guard let questionMark = path.firstIndex(of: "?") else { return path }
        let base = path[..<questionMark]
        let query = path[path.index(after: questionMark)...]
        let redactor = Redactor.standard
        // In a query every value of a secret name is a secret, however short (``SecretVocabulary/Context/query``).
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            let value = String(item[item.index(after: equals)...])
            let decodedName = name.removingPercentEncoding ?? name
            if SecretVocabulary.names.contains(decodedName.lowercased()) {
                return "\(name)=\(placeholder)"
            }
            return "\(name)=\(redactor.redact(text: value))"
        }
        return base + "?" + items.joined(separator: "&")
    }
}
