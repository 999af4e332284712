import Logging
import MendHTTP
import ServiceLifecycle
import Tracing

/// Runs the provider-token validity check (and the purge of what expired) every
/// ``FacebookApp/validityCheckInterval`` until graceful shutdown; daily without a Facebook app.
struct ValidityCheckService: Service {
    let backend: LoginBackend

    func run() async throws {
        let interval = backend.housekeeping.validityCheckInterval
        let clock = backend.configuration.clock
        guard interval > .zero else {
            try? await gracefulShutdown()
            return
        }
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    try await clock.sleep(interval)
                    // Its own trace (no request started it): its debug_token calls and statements nest in it.
                    _ = try await ServerTracing.withSpan("mend.validity_check") { span in
                        let report = await backend.housekeeping.checkProviderTokens()
                        span?.attributes["mend.validity.checked"] = report.checked
                        span?.attributes["mend.validity.invalidated"] = report.invalidated
                    }
                }
            }
        } catch is CancellationError {
            return
        }
    }
}

/// Closes the database once the server has stopped (services shut down in reverse order: the HTTP server, which
/// finishes the requests in flight, goes first).
struct DatabaseLifecycleService: Service {
    let backend: LoginBackend

    func run() async throws {
        try? await gracefulShutdown()
        await backend.close()
    }
}
