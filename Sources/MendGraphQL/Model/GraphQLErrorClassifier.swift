public import MendCore

/// Maps GraphQL errors to classified `MendError`s by `extensions.code`.
///
/// The standard mapping comes from the catalog's GraphQL rows (`UNAUTHENTICATED` → recoverable re-authentication,
/// `FORBIDDEN` → recoverable permission, `BAD_USER_INPUT` / `GRAPHQL_VALIDATION_FAILED` → other,
/// `INTERNAL_SERVER_ERROR` → transient, …). Apps extend it with `mapping`: their own codes to catalog codes.
public struct GraphQLErrorClassifier: Sendable {
    /// Extra `extensions.code` values and the catalog code each maps to; these win over the catalog's wire names.
    package var mapping: [String: MendError.Code]
    /// The catalog.
    package var catalog: ErrorCatalog

    /// Creates a classifier.
    public init(mapping: [String: MendError.Code] = [:], catalog: ErrorCatalog = .graphQL) {
        self.mapping = mapping
        self.catalog = catalog
    }

    /// The catalog code for a GraphQL error's code string.
    package func code(for wireCode: String?) -> MendError.Code {
        guard let wireCode else { return .GraphQL.unknown }
        if let mapped = mapping[wireCode] { return mapped }
        if let entry = catalog.entry(in: .graphQL, wireName: wireCode), let code = entry.codes?.lowerBound {
            return MendError.Code(.graphQL, code)
        }
        return .GraphQL.unknown
    }

    /// A classified error for one GraphQL error: its message is the developer message, its path and locations
    /// become additional messages, and a permission the server names (`extensions.missing_permission`, a string or
    /// a list, or `missing_permissions`) becomes the recovery's permissions to request.
    public func error(for graphQLError: GraphQLError, redactor: Redactor = .standard) -> MendError {
        var error = MendError(
            code: code(for: graphQLError.code),
            developerMessage: redactor.redact(text: graphQLError.message)
                + (graphQLError.code.map { " [\($0)]" } ?? ""),
            catalog: catalog)
        if let path = graphQLError.pathText { error.additionalMessages.append("path: \(path)") }
        if !graphQLError.locations.isEmpty {
            let text = graphQLError.locations.map { "\($0.line):\($0.column)" }.joined(separator: ", ")
            error.additionalMessages.append("locations: \(text)")
        }
        let permissions = Self.missingPermissions(graphQLError.extensions)
        if !permissions.isEmpty, error.recovery.action == .requestPermissions {
            error.requestedPermissions = permissions
        }
        return error
    }

    /// The permissions an error's extensions name as missing: names made of letters, digits and `_.:-/`
    /// (a server's free text never becomes a permission request).
    static func missingPermissions(_ extensions: [String: JSONValue]) -> [String] {
        let value = extensions["missing_permission"] ?? extensions["missing_permissions"]
        let names = value?.stringValue.map { [$0] } ?? value?.arrayValue?.compactMap(\.stringValue) ?? []
        return names.filter { name in
            !name.isEmpty && name.utf8.count <= 128
                && name.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "_.:-/".utf8.contains(byte)
                }
        }
    }
}
