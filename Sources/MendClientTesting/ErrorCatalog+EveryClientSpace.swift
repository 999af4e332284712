public import MendCore
import MendGraphAPI
import MendGraphQL
import MendHTTP
import MendLogin

extension ErrorCatalog {
    /// Every error space that Mend's client modules declare (login, session, OAuth, passkey, Graph, REST, GraphQL, HTTP and
    /// transport): the same spaces, in the same order, as MendEmulator's `ErrorCatalog.everySpace` (MendEmulatorTests
    /// checks that they agree), for tests that build without the emulator.
    public static let everyClientSpace = ErrorCatalog(spaces: [
        .login, .session, .oauth, .passkey, .graph, .rest, .graphQL, .http, .transport,
    ])
}
