public import MendCore

/// The outcome of a request in the completion-handler flavour: a value, a classified error, or cancellation —
/// which is not an error.
public enum Completion<Value: Sendable>: Sendable {
    /// The request succeeded.
    case success(Value)
    /// The request failed with a classified error.
    case failure(MendError)
    /// The request was cancelled (through its ``RequestHandle`` or its task).
    case cancelled

    /// The value, or `nil`.
    public var value: Value? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error, or `nil`.
    public var error: MendError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A running request of the completion-handler flavour; cancel it to stop waiting and retrying at once.
public final class RequestHandle: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) { self.task = task }

    /// Cancels the request. Its completion is still called, exactly once, with ``Completion/cancelled`` (unless
    /// it had already finished).
    public func cancel() { task.cancel() }

    /// Waits until the completion has been called.
    public func wait() async { await task.value }
}

extension RequestHandle {
    /// Runs `operation` in a task and calls `completion` exactly once with its outcome.
    public static func run<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        completion: @escaping @Sendable (Completion<Value>) -> Void
    ) -> RequestHandle {
        RequestHandle(
            task: Task {
                let outcome: Completion<Value>
                do {
                    outcome = .success(try await operation())
                } catch is CancellationError {
                    outcome = .cancelled
                } catch let error as MendError {
                    outcome = .failure(error)
                } catch {
                    // `APIClient` only throws MendError or CancellationError; anything else is normalized here.
                    outcome =
                        (APIClient.normalize(error, attempts: 0, catalog: .core) as? MendError).map(Completion.failure)
                        ?? .cancelled
                }
                completion(outcome)
            })
    }
}

extension APIClient {
    /// Sends `request` and calls `completion` exactly once — with the response, the classified error, or
    /// ``Completion/cancelled`` — on an unspecified thread.
    @discardableResult
    public func send(
        _ request: APIRequest, completion: @escaping @Sendable (Completion<APIResponse>) -> Void
    ) -> RequestHandle {
        RequestHandle.run({ try await self.send(request) }, completion: completion)
    }
}
