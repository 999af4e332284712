import Foundation

/// The `fields` parameter: top-level field names, with nested selections (`picture{url}`) and modifiers
/// (`friends.limit(2)`) stripped.
enum FieldList {
    static func parse(_ text: String?) -> [String]? {
        guard let text, !text.isEmpty else { return nil }
        var names: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "{", "(":
                depth += 1
                current.append(character)
            case "}", ")":
                depth -= 1
                current.append(character)
            case "," where depth == 0:
                names.append(current)
                current = ""
            default:
                current.append(character)
            }
        }
        names.append(current)
        return names.map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            let end = trimmed.firstIndex { $0 == "{" || $0 == "." || $0 == "(" } ?? trimmed.endIndex
            return String(trimmed[..<end])
        }.filter { !$0.isEmpty }
    }
}
