public import Hummingbird
public import NIOCore

/// The request context of the emulator's application: Hummingbird's core context plus the connection, which a
/// "dropped connection" fault closes.
public struct EmulatorRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel

    /// Creates the context for a request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Bodies up to 16 MiB (batch requests and REST objects).
    public var maxUploadSize: Int { 16 << 20 }
}
