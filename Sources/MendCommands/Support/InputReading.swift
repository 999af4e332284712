import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a command's input from an argument, a file or standard input, never more than a limit.
enum InputReading {
    /// Why input could not be read.
    enum Failure: Error, CustomStringConvertible {
        case noInput
        case tooLarge(limit: Int)
        case unreadableFile(String)

        var description: String {
            switch self {
            case .noInput: "Give a response body as an argument, with --file, or on standard input."
            case .tooLarge(let limit): "The input is larger than \(limit) bytes; give the error body only."
            case .unreadableFile(let path): "Cannot read the file \(path)."
            }
        }
    }

    static func read(argument: String?, file: String?, limit: Int) throws(Failure) -> Data {
        if let argument {
            guard argument.utf8.count <= limit else { throw .tooLarge(limit: limit) }
            return Data(argument.utf8)
        }
        if let file {
            let handle: FileHandle
            if file == "-" {
                handle = FileHandle.standardInput
            } else {
                guard let opened = FileHandle(forReadingAtPath: file) else { throw .unreadableFile(file) }
                handle = opened
            }
            return try readBounded(handle, limit: limit)
        }
        guard isatty(STDIN_FILENO) == 0 else { throw .noInput }
        return try readBounded(FileHandle.standardInput, limit: limit)
    }

    /// Reads at most `limit + 1` bytes, so that oversized input is refused without reading it all.
    private static func readBounded(_ handle: FileHandle, limit: Int) throws(Failure) -> Data {
        var data = Data()
        while data.count <= limit {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: min(64 << 10, limit + 1 - data.count))
            } catch {
                throw .unreadableFile("standard input")
            }
            guard let chunk, !chunk.isEmpty else { break }
            data.append(chunk)
        }
        guard data.count <= limit else { throw .tooLarge(limit: limit) }
        return data
    }
}

/// Writes to standard error.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
