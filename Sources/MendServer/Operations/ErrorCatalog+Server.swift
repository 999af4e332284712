public import MendCore
import MendGraphAPI
import MendHTTP
import MendLogin

extension ErrorCatalog {
    /// The rows mend-server answers with: MendLogin's catalog (transport, HTTP, login, session, OAuth), the Graph
    /// space (Facebook's answers, as its code login relays them) and the REST status space (its storage and internal
    /// failures).
    public static let server = ErrorCatalog.login.adding(.graph).adding(.rest)
}
