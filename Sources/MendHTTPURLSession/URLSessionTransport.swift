public import HTTPTypes
import MendCore
public import MendHTTP

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The URLSession transport: for Apple apps (and Linux, through FoundationNetworking).
///
/// Bodies stream through a session delegate, so the pipeline's size limit bounds memory. `URLError`s become
/// transport-domain `MendError`s; cancelling the task cancels the data task and throws
/// `CancellationError`.
///
/// On Linux, prefer `AsyncHTTPClientTransport` against servers you do not control: FoundationNetworking aborts the
/// process (`Transfer completed, but there's no response`) when a server closes the connection in the middle of
/// the response's header block, and no transport built on it can catch that.
///
/// The transport keeps no answers: its session has no `URLCache` (an ephemeral session's in-memory cache would hand
/// one user's answer to another within a process) and every request ignores local cache data. Keeping answers is
/// the user's own store's business (`LastKnownGood`), keyed by the user.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: StreamingDelegate
    /// The timeout of a request that has no deadline of its own.
    package let defaultTimeout: Duration

    /// Creates a transport with its own session built from `configuration`, whose `URLCache` is removed.
    public init(configuration: URLSessionConfiguration = .ephemeral, defaultTimeout: Duration = .seconds(60)) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = StreamingDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.defaultTimeout = defaultTimeout
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Whether the session keeps answers of its own (a `URLCache`): never.
    package var keepsAnswers: Bool { session.configuration.urlCache != nil }

    /// Sends `request` within `timeout` (`defaultTimeout` without one) and returns the response head and its body.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, timeout: Duration?
    ) async throws -> (HTTPResponse, HTTPBody) {
        guard let url = request.url else {
            throw MendError(
                code: .Transport.invalidRequest, developerMessage: "The request has no absolute URL.", catalog: .core)
        }
        let timeout = timeout ?? defaultTimeout
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.canonicalName)
        }
        if let body, case .complete(let data) = try await body.collect(upTo: .max) {
            urlRequest.httpBody = data
        }
        try Task.checkCancellation()
        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange()
        delegate.register(exchange, for: task)
        return try await withTaskCancellationHandler {
            let head: HTTPURLResponse = try await withCheckedThrowingContinuation { continuation in
                exchange.awaitHead(continuation)
                task.resume()
            }
            var fields = HTTPFields()
            for (key, value) in head.allHeaderFields {
                if let name = HTTPField.Name("\(key)") { fields.append(HTTPField(name: name, value: "\(value)")) }
            }
            let length = head.expectedContentLength >= 0 ? Int(head.expectedContentLength) : nil
            return (
                HTTPResponse(status: .init(code: head.statusCode), headerFields: fields),
                HTTPBody(stream: exchange.body, expectedLength: length)
            )
        } onCancel: {
            task.cancel()
        }
    }

    /// Maps a `URLError` (or any error of the data task) to a transport-domain `MendError`.
    static func map(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else {
            return MendError(code: .Transport.unclassified, developerMessage: "URLSession: \(error)", catalog: .core)
        }
        let code: MendError.Code
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed:
            code = .Transport.notConnected
        case .networkConnectionLost: code = .Transport.connectionLost
        case .timedOut: code = .Transport.timedOut
        case .cannotFindHost, .dnsLookupFailed: code = .Transport.cannotFindHost
        case .cannotConnectToHost: code = .Transport.cannotConnect
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            code = .Transport.secureConnectionFailed
        case .badURL, .unsupportedURL: code = .Transport.invalidRequest
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            code = .Transport.malformedResponse
        case .zeroByteResource: code = .Transport.emptyResponse
        default: code = .Transport.unclassified
        }
        var mendError = MendError(
            code: code, developerMessage: "URLSession: URLError \(urlError.code.rawValue)", catalog: .core)
        mendError.underlying = UnexpectedFailure(description: "URLError \(urlError.code.rawValue)")
        return mendError
    }
}

/// One data task's head continuation and body stream.
final class Exchange: Sendable {
    private struct State {
        var headContinuation: CheckedContinuation<HTTPURLResponse, any Error>?
        var headDelivered = false
        var pendingError: (any Error)?
    }

    let body: AsyncThrowingStream<HTTPBody.Chunk, any Error>
    private let bodyContinuation: AsyncThrowingStream<HTTPBody.Chunk, any Error>.Continuation
    private let state = Locked(State())

    init() {
        (body, bodyContinuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
    }

    func awaitHead(_ continuation: CheckedContinuation<HTTPURLResponse, any Error>) {
        let error: (any Error)? = state.withLock { state in
            if let pending = state.pendingError { return pending }
            state.headContinuation = continuation
            return nil
        }
        if let error { continuation.resume(throwing: error) }
    }

    func receive(head: HTTPURLResponse) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            state.headDelivered = true
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        continuation?.resume(returning: head)
    }

    func receive(data: Data) {
        bodyContinuation.yield(ArraySlice(data))
    }

    func complete(error: (any Error)?) {
        let mapped = error.map(URLSessionTransport.map)
        let continuation = state.withLock { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            guard !state.headDelivered else { return nil }
            if state.headContinuation == nil { state.pendingError = mapped ?? Self.noResponse }
            defer { state.headContinuation = nil }
            return state.headContinuation
        }
        if let continuation {
            continuation.resume(throwing: mapped ?? Self.noResponse)
        }
        if let mapped { bodyContinuation.finish(throwing: mapped) } else { bodyContinuation.finish() }
    }

    static var noResponse: MendError {
        MendError(
            code: .Transport.malformedResponse, developerMessage: "URLSession finished without an HTTP response.",
            catalog: .core)
    }
}

/// Routes a session's delegate callbacks to each task's ``Exchange``.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        exchange(for: dataTask)?.receive(head: http)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.receive(data: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error: error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Follow redirects, as URLSession users expect (and as AsyncHTTPClient's shared client does).
        completionHandler(request)
    }
}
