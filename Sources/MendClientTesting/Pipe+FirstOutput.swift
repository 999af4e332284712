public import Foundation

extension Pipe {
    /// Waits, on a thread of its own, until the process writing to this pipe has written something (or closed it):
    /// how a test knows that a child process reached a point it announces, without a sleep.
    public func firstOutput() async {
        let reader = fileHandleForReading
        await withCheckedContinuation { continuation in
            Thread {
                _ = reader.availableData
                continuation.resume()
            }.start()
        }
    }
}
