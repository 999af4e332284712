public import Foundation
public import HTTPTypes
import MendCore
public import MendHTTP
public import MendRecording

/// The emulated provider: its state (apps, users, codes, tokens, clock, faults, request log) and the handling of
/// every request.
///
/// ``buildApplication(configuration:)`` creates one; build the application with
/// `buildApplication(emulator:onServerRunning:)` to keep a reference and control it from Swift:
///
/// ```swift
/// let emulator = Emulator(configuration: EmulatorConfiguration(seed: 42))
/// let app = buildApplication(emulator: emulator)
/// try await emulator.injectFault(.error("graph/190/460", path: "/me"))
/// ```
///
/// Everything is in memory and deterministic: the same seed and the same requests give the same ids and tokens.
public actor Emulator {
    /// The configuration the emulator started from (and returns to on ``reset()``).
    public nonisolated let configuration: EmulatorConfiguration
    /// The clock the emulator's running time comes from and its delayed answers wait on (MendHTTP's one clock).
    public nonisolated let clock: PipelineClock
    var state: EmulatorState
    let graphQL = GraphQLService()
    /// The recording the emulator answers from instead of its own state (`mend emulate --replay`), if any.
    let replay: ReplayTransport?

    /// Creates an emulator whose running time comes from `clock` (the system's by default; a test's to move it).
    ///
    /// - Parameters:
    ///   - configuration: The apps, users, limits and behaviours it starts from.
    ///   - clock: Where its running time comes from, and what its delayed answers wait on.
    ///   - replay: A recording to serve as the provider: every request but the control API's is answered from it
    ///     (faults still apply on top), and one it has no answer for gets a 404 naming the closest recorded request.
    public init(
        configuration: EmulatorConfiguration = EmulatorConfiguration(), clock: PipelineClock = .system,
        replay: ReplayTransport? = nil
    ) {
        self.configuration = configuration
        self.clock = clock
        self.state = EmulatorState(configuration: configuration, clock: clock)
        self.replay = replay
    }

    /// Answers one request: the control API, or fault injection, then the Graph, login, GraphQL or REST surface;
    /// every answer except the control API's is written to the request log.
    public func handle(_ request: EmulatorRequest) async -> EmulatorResponse {
        let route = EmulatorRoute.resolve(
            method: request.method.rawValue, segments: request.segments, hasIDs: request.query["ids"] != nil)
        if case .control(let path) = route {
            guard configuration.testMode else {
                return state.context.render(
                    .failure(GraphFailure(code: 2500, message: "Unknown path components: \(request.path)")))
            }
            return await control(request, path: path)
        }
        let subject = state.subject(for: request, route: route)
        var random = state.context.random
        let rule = state.faults.take(for: subject, draw: { random.fraction() })
        state.context.random = random
        var response: EmulatorResponse
        if let rule, let replacement = rule.replacement(context: &state.context) {
            response = rule.finish(replacement)
        } else {
            if let replay {
                response = await Self.replayed(request, from: replay)
            } else {
                response = await answer(request, route: route)
            }
            if let rule { response = rule.finish(response) }
        }
        let status = response.delivery == .drop ? 0 : response.status.code
        let redacted = Redactor.standard.redact(text: request.rawQuery)
        let moment = state.now
        state.log.append(
            { sequence in
                RequestLogEntry(
                    sequence: sequence, method: request.method.rawValue, path: request.path, query: redacted,
                    status: status, timestamp: moment, userID: subject.userID, appID: subject.appID,
                    faultID: rule?.id)
            }, limit: configuration.requestLogLimit)
        return response
    }

    /// The recording's answer to `request`: its response, a dropped connection for a recorded transport failure, or
    /// a 404 in the Graph error shape naming the closest recorded request.
    static func replayed(_ request: EmulatorRequest, from replay: ReplayTransport) async -> EmulatorResponse {
        let target = request.rawQuery.isEmpty ? request.path : "\(request.path)?\(request.rawQuery)"
        let head = HTTPRequest(
            method: request.method, scheme: "http", authority: "emulator", path: target,
            headerFields: request.headers)
        do {
            let (response, body) = try await replay.send(
                head, body: request.body.isEmpty ? nil : HTTPBody(request.body), timeout: nil)
            guard case .complete(let data) = try await body.collect(upTo: 64 << 20) else {
                return EmulatorResponse(status: .internalServerError)
            }
            return EmulatorResponse(status: response.status, headers: response.headerFields, body: data)
        } catch let error as MendError where error.code == .Transport.replayMismatch {
            let body = JSONValue.object([
                "error": .object([
                    "message": .string(error.developerMessage), "type": .string("MendReplayMismatch"),
                    "code": .int(2500),
                ])
            ])
            return EmulatorResponse(
                status: .notFound, headers: [.contentType: "application/json"], body: Data(body.jsonText().utf8))
        } catch {
            var dropped = EmulatorResponse(status: .ok)
            dropped.delivery = .drop
            return dropped
        }
    }

    private func answer(_ request: EmulatorRequest, route: EmulatorRoute) async -> EmulatorResponse {
        switch route {
        case .control: return EmulatorResponse(status: .notFound)
        case .graphQL: return await graphQL.handle(request, context: state.graphQLContext(for: request))
        case .restObjects(let type, let id): return state.handleREST(request, type: type, id: id)
        case .issuer(let kind, let segments): return state.handleIssuer(request, kind: kind, segments: segments)
        case .openIDConfiguration:
            return .json(TokenBook.openIDConfiguration(baseURL: request.baseURL, context: state.context))
        case .jwks: return .json(state.jwks())
        case .graph(let version, let graphRoute):
            return state.handleGraph(request, version: version, route: graphRoute)
        }
    }
}
