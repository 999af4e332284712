public import Foundation

/// A request or response body: buffered bytes, or a stream of chunks that is read at most once.
///
/// Streaming bodies let the pipeline stop reading at the response size limit, so memory stays bounded whatever the
/// server sends.
public struct HTTPBody: Sendable {
    /// One chunk of a streamed body.
    package typealias Chunk = ArraySlice<UInt8>

    enum Storage: Sendable {
        case buffered(Data)
        case stream(AsyncThrowingStream<Chunk, any Error>, expectedLength: Int?)
        case collector(expectedLength: Int?, collect: @Sendable (Int) async throws -> Collected)
    }

    let storage: Storage

    /// A buffered body.
    public init(_ data: Data) { storage = .buffered(data) }

    /// A buffered body from text (UTF-8).
    package init(_ text: String) { storage = .buffered(Data(text.utf8)) }

    /// A streamed body. `expectedLength` is the `Content-Length`, when the server sent one.
    package init(stream: AsyncThrowingStream<Chunk, any Error>, expectedLength: Int? = nil) {
        storage = .stream(stream, expectedLength: expectedLength)
    }

    /// A body that its transport reads itself: `collect(limit)` must stop reading once the body exceeds `limit`
    /// bytes and say so with ``Collected/tooLarge(prefix:limit:)``. It is called at most once.
    package init(expectedLength: Int?, collect: @escaping @Sendable (_ limit: Int) async throws -> Collected) {
        storage = .collector(expectedLength: expectedLength, collect: collect)
    }

    /// An empty body.
    public static let empty = HTTPBody(Data())

    /// The declared length, if known before reading.
    package var expectedLength: Int? {
        switch storage {
        case .buffered(let data): data.count
        case .stream(_, let length): length
        case .collector(let length, _): length
        }
    }

    /// What collecting a body found.
    public enum Collected: Sendable {
        /// The whole body.
        case complete(Data)
        /// The body is larger than the limit; `prefix` holds the bytes read before stopping.
        case tooLarge(prefix: Data, limit: Int)
    }

    /// Reads the body, stopping as soon as it would exceed `limit` bytes.
    ///
    /// Throws what the stream throws (a transport's `MendError`, or `CancellationError`).
    public func collect(upTo limit: Int) async throws -> Collected {
        switch storage {
        case .buffered(let data):
            return data.count > limit ? .tooLarge(prefix: data.prefix(limit), limit: limit) : .complete(data)
        case .collector(_, let collect):
            return try await collect(limit)
        case .stream(let stream, let expectedLength):
            if let expectedLength, expectedLength > limit {
                var prefix = Data()
                for try await chunk in stream {
                    prefix.append(contentsOf: chunk.prefix(limit - prefix.count))
                    break
                }
                return .tooLarge(prefix: prefix, limit: limit)
            }
            var data = Data()
            if let expectedLength { data.reserveCapacity(expectedLength) }
            for try await chunk in stream {
                guard data.count + chunk.count <= limit else {
                    data.append(contentsOf: chunk.prefix(limit - data.count))
                    return .tooLarge(prefix: data, limit: limit)
                }
                data.append(contentsOf: chunk)
            }
            return .complete(data)
        }
    }
}
