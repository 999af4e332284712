/// The injected faults, in the order they were added, and the matching policy.
struct FaultBook: Sendable {
    private(set) var rules: [FaultRule] = []
    private var nextID = 1

    /// What a request is matched on.
    struct Subject: Sendable {
        var method: String
        var path: String
        var unversionedPath: String
        var userID: String?
        var appID: String?
        /// What a Graph edge request asks for: its `limit` × the number of its `fields` (at least 1); `nil` for
        /// every other request.
        var payloadSize: Int? = nil
    }

    mutating func add(_ rule: FaultRule) -> FaultRule {
        var rule = rule
        rule.id = "fault-\(nextID)"
        rule.hits = 0
        nextID += 1
        rules.append(rule)
        return rule
    }

    mutating func remove(id: String) -> Bool {
        let before = rules.count
        rules.removeAll { $0.id == id }
        return rules.count != before
    }

    mutating func removeAll() { rules.removeAll() }

    /// The first rule that matches and has applications left, counted as applied; `draw` gives a number in
    /// `0..<1` for rules with a probability.
    mutating func take(for subject: Subject, draw: () -> Double) -> FaultRule? {
        for index in rules.indices where !rules[index].isExhausted && Self.matches(rules[index], subject) {
            if let probability = rules[index].probability, draw() >= probability { continue }
            rules[index].hits += 1
            return rules[index]
        }
        return nil
    }

    static func matches(_ rule: FaultRule, _ subject: Subject) -> Bool {
        if let method = rule.method, method.uppercased() != subject.method.uppercased() { return false }
        if let userID = rule.userID, userID != subject.userID { return false }
        if let appID = rule.appID, appID != subject.appID { return false }
        if rule.kind == .payloadBudget {
            // Only an edge request over the budget is refused (and counted).
            guard let size = subject.payloadSize, let budget = rule.payloadBudget, size > budget else { return false }
        }
        if let pattern = rule.path {
            return glob(pattern, matches: subject.path) || glob(pattern, matches: subject.unversionedPath)
        }
        return true
    }

    /// `*` matches any run of characters; everything else matches itself.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let pattern = Array(pattern)
        let text = Array(text)
        var p = 0
        var t = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
