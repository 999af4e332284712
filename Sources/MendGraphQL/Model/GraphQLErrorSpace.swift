// The GraphQL error space: its domain, codes and catalog rows. Source: the GraphQL community's `extensions.code`
// values.
public import MendCore

extension MendError.Domain {
    /// GraphQL errors, keyed by `extensions.code`.
    public static let graphQL = Self(rawValue: "graphql")
}

extension MendError.Code {
    /// GraphQL errors, mapped from `extensions.code`, and the client's own GraphQL conditions.
    public enum GraphQL {
        /// A GraphQL error without a known `extensions.code`.
        public static let unknown = MendError.Code(.graphQL, 0)
        /// `UNAUTHENTICATED`.
        public static let unauthenticated = MendError.Code(.graphQL, 1)
        /// `FORBIDDEN`.
        public static let forbidden = MendError.Code(.graphQL, 2)
        /// `BAD_USER_INPUT`.
        public static let badUserInput = MendError.Code(.graphQL, 3)
        /// `GRAPHQL_VALIDATION_FAILED`.
        public static let validationFailed = MendError.Code(.graphQL, 4)
        /// `GRAPHQL_PARSE_FAILED`.
        public static let parseFailed = MendError.Code(.graphQL, 5)
        /// `INTERNAL_SERVER_ERROR`.
        public static let internalServerError = MendError.Code(.graphQL, 6)
        /// `PERSISTED_QUERY_NOT_FOUND`.
        public static let persistedQueryNotFound = MendError.Code(.graphQL, 7)
        /// `PERSISTED_QUERY_NOT_SUPPORTED`.
        public static let persistedQueryNotSupported = MendError.Code(.graphQL, 8)
        /// `OPERATION_RESOLUTION_FAILURE`.
        public static let operationResolutionFailure = MendError.Code(.graphQL, 9)
        /// `BAD_REQUEST`.
        public static let badRequest = MendError.Code(.graphQL, 10)
        /// The response carried GraphQL errors (thrown under the `.none` error policy, with the errors and data).
        public static let responseHasErrors = MendError.Code(.graphQL, 11)
        /// The response had neither `data` nor `errors`.
        public static let noData = MendError.Code(.graphQL, 12)
    }
}

extension ErrorSpace {
    /// GraphQL errors, keyed by `extensions.code` (the community's codes), and the response-level errors.
    // swift-format-ignore
    public static let graphQL = ErrorSpace(domain: .graphQL, entries: [
        .row(.graphQL, nil, "unknownGraphQLError", .other, .contactSupport, .generic, "A GraphQL error with an unknown code."),
        .row(.graphQL, 0, "unknown", .other, .contactSupport, .generic, "A GraphQL error without extensions.code."),
        .row(.graphQL, 1, "unauthenticated", .recoverable, .reauthenticate, .sessionExpired, "UNAUTHENTICATED: re-authenticate, then replay.", wire: "UNAUTHENTICATED"),
        .row(.graphQL, 2, "forbidden", .recoverable, .requestPermissions, .permissionMissing, "FORBIDDEN: a permission is missing.", wire: "FORBIDDEN"),
        .row(.graphQL, 3, "badUserInput", .other, .changeRequest, .invalidInput, "BAD_USER_INPUT: an argument is invalid.", wire: "BAD_USER_INPUT"),
        .row(.graphQL, 4, "validationFailed", .other, .changeRequest, .generic, "GRAPHQL_VALIDATION_FAILED: the operation does not match the schema.", wire: "GRAPHQL_VALIDATION_FAILED"),
        .row(.graphQL, 5, "parseFailed", .other, .changeRequest, .generic, "GRAPHQL_PARSE_FAILED: the operation is not valid GraphQL.", wire: "GRAPHQL_PARSE_FAILED"),
        .row(.graphQL, 6, "internalServerError", .transient, .retry, .serviceUnavailable, "INTERNAL_SERVER_ERROR: retry queries with backoff.", wire: "INTERNAL_SERVER_ERROR"),
        .row(.graphQL, 7, "persistedQueryNotFound", .other, .changeRequest, .generic, "PERSISTED_QUERY_NOT_FOUND: send the full query with its hash.", wire: "PERSISTED_QUERY_NOT_FOUND"),
        .row(.graphQL, 8, "persistedQueryNotSupported", .other, .changeRequest, .generic, "PERSISTED_QUERY_NOT_SUPPORTED: send full queries.", wire: "PERSISTED_QUERY_NOT_SUPPORTED"),
        .row(.graphQL, 9, "operationResolutionFailure", .other, .changeRequest, .generic, "OPERATION_RESOLUTION_FAILURE: the operation to run could not be determined.", wire: "OPERATION_RESOLUTION_FAILURE"),
        .row(.graphQL, 10, "badRequest", .other, .changeRequest, .generic, "BAD_REQUEST: the HTTP request was not a valid GraphQL request.", wire: "BAD_REQUEST"),
        .row(.graphQL, 11, "responseHasErrors", .other, .none, .partialContent, "The response carried GraphQL errors; see the errors and the partial data. Thrown errors take the category and recovery of the most actionable error."),
        .row(.graphQL, 12, "noData", .transient, .retry, .unreadableResponse, "The response had neither data nor errors."),
    ])
}

extension ErrorCatalog {
    /// The catalog of a GraphQL client: `ErrorCatalog.core` with the GraphQL space.
    public static let graphQL = ErrorCatalog.core.adding(.graphQL)
}
