import MendCore
import MendGraphQL
import MendLogin

extension FaultRule {
    /// A parsed `error` value: `graph/190/460`, `rest/409`, `graphql/UNAUTHENTICATED`, `http/503`, `transport/5`.
    struct CatalogError: Sendable, Hashable {
        var domain: MendError.Domain
        var code: Int
        var subcode: Int?
    }

    /// Parses `domain/code[/subcode]`; GraphQL codes may be given by wire name.
    static func parse(error text: String) -> CatalogError? {
        let parts = text.split(separator: "/").map(String.init)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let domain = MendError.Domain(rawValue: parts[0].lowercased())
        guard ErrorCatalog.everySpace.domains.contains(domain) else { return nil }
        let code: Int
        if let number = Int(parts[1]) {
            code = number
        } else if domain == .graphQL, let entry = ErrorCatalog.everySpace.entry(in: .graphQL, wireName: parts[1]),
            let number = entry.codes?.lowerBound
        {
            code = number
        } else {
            return nil
        }
        var subcode: Int?
        if parts.count == 3 {
            guard let number = Int(parts[2]) else { return nil }
            subcode = number
        }
        return CatalogError(domain: domain, code: code, subcode: subcode)
    }

    /// Why the fault cannot be injected, or `nil` when it can.
    var problem: String? {
        if let probability, !(0...1).contains(probability) { return "probability must be between 0 and 1" }
        if let times, times < 1 { return "times must be at least 1" }
        if let status, !(100...599).contains(status) { return "status must be an HTTP status (100–599)" }
        if kind == .payloadBudget {
            guard let payloadBudget else {
                return
                    "a payloadBudget fault needs \"payloadBudget\": the largest limit × number of fields (at least 1)"
            }
            return payloadBudget < 1 ? "payloadBudget must be at least 1" : nil
        }
        guard kind == .error else { return nil }
        guard let text = error else { return "an error fault needs \"error\": \"domain/code[/subcode]\"" }
        guard let parsed = Self.parse(error: text) else {
            return
                "\"\(text)\" is not domain/code[/subcode] with a known domain (graph, rest, graphql, http, transport)"
        }
        switch parsed.domain {
        case .login:
            return
                "login errors arise in the client (state, id_token, cancellation); they cannot be injected on the wire"
        case .transport where parsed.code == 11:
            return "transport/11 (invalidRequest) arises in the client before any request is sent"
        case .http where !(400...599).contains(parsed.code):
            return "http errors need a 4xx or 5xx status"
        default:
            return nil
        }
    }
}
