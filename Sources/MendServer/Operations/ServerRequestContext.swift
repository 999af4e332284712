import Hummingbird
import Logging
import NIOCore

/// The request context of the server's routes: Hummingbird's core storage, the request id, and the peer address.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request id (the incoming `X-Request-Id` when it is sane, else a new one); set by the operations
    /// middleware, echoed on every response and used as the reference id of every error.
    var requestID: String
    /// The connection's peer (`nil` in router tests); its address is formatted only when a route asks for it.
    private let peer: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        self.requestID = ""
        self.peer = source.channel.remoteAddress
    }

    /// The address of the connection's peer (`nil` in router tests).
    var peerAddress: String? { peer?.ipAddress }
}
