public import Hummingbird
import HummingbirdCore
public import Logging
import MendCore
import NIOCore

/// Builds `mend-server` as a Hummingbird 2 application: opens the database (running its migrations) and the
/// provider client, then wires the routes.
///
/// Run it with `try await app.runService()` (graceful shutdown on SIGTERM and SIGINT: requests in flight finish,
/// then the database closes), or test it with HummingbirdTesting's `app.test(.router)` and `app.test(.live)`.
///
/// - Parameters:
///   - configuration: The server's configuration (``ServerConfiguration/load(environment:overrides:)`` reads it).
///   - logger: Where the server logs; tokens, codes and secrets never appear in it.
///   - metrics: Where metrics go.
///   - onServerRunning: Called with the bound port once the server accepts connections.
/// Needs macOS 14, iOS 17 or tvOS 17 (Hummingbird's `Application`).
@available(macOS 14, iOS 17, tvOS 17, *)
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "mend.server"),
    metrics: ServerMetrics = ServerMetrics(), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let backend = try await LoginBackend.open(configuration: configuration, logger: logger, metrics: metrics)
    return buildApplication(backend: backend, onServerRunning: onServerRunning)
}

/// Builds the application around an open ``LoginBackend`` (whose database the application closes when it stops).
@available(macOS 14, iOS 17, tvOS 17, *)
public func buildApplication(
    backend: LoginBackend, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = backend.configuration
    let router = Router(context: ServerRequestContext.self)
    router.add(
        middleware: OperationsMiddleware(
            metrics: backend.metrics, redactor: backend.redactor,
            endpoints: RouteTable.served(configuration),
            dpopNonce: configuration.sessions.dpopRequiresNonce ? backend.sessions.currentDPoPNonce : nil))
    ServerRoutes.register(on: router, backend: backend)
    return Application(
        router: router,
        // A request the HTTP parser refuses is answered in the Mend error shape too (not Hummingbird's bare 400).
        server: .http1(
            configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [MalformedRequestHandler()])),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.listening.host, port: configuration.listening.port), serverName: nil),
        services: [DatabaseLifecycleService(backend: backend), ValidityCheckService(backend: backend)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.listening.port)
        },
        logger: backend.logger)
}
