public import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendLogin

extension ErrorCatalog {
    /// Every error space that Mend's modules declare, in display order: login, session, OAuth, passkey, Graph, REST, GraphQL, HTTP
    /// and transport. What the emulator emulates, `mend errors list` lists and docs/errors.md documents.
    public static let everySpace = ErrorCatalog(spaces: [
        .login, .session, .oauth, .passkey, .graph, .rest, .graphQL, .http, .transport,
    ])
}
