import Foundation
import MendTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `mend emulate` from the built binary: the base URL, the ready line, a clean stop on a signal.
struct EmulateCommandTests {
    static var binary: URL? { BuiltExecutable.url(named: "mend") }

    /// Reads standard output until the ready line (at most `timeout` seconds); returns the lines.
    static func readUntilReady(_ handle: FileHandle, timeout: TimeInterval) -> [String] {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var lines: [String] = []  // written by the reader before done.signal(), read after
        DispatchQueue.global().async {
            var buffer = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer += String(decoding: data, as: UTF8.self)
                if buffer.contains("\nready\n") { break }
            }
            lines = buffer.split(separator: "\n").map(String.init)
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout)
        return lines
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func printsTheBaseURLAndAReadyLineThenStopsOnASignal(signalNumber: Int32) async throws {
        let binary = try #require(Self.binary, "build the `mend` product first (swift build)")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["emulate", "--port", "0", "--seed", "3"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Waits for the ready line; the bound only keeps a hung process from hanging the suite.
        let lines = Self.readUntilReady(output.fileHandleForReading, timeout: 120)
        #expect(lines.last == "ready")
        let base = try #require(lines.first { $0.hasPrefix("base URL: ") }?.dropFirst("base URL: ".count))
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let (data, response) = try await URLSession.shared.data(from: URL(string: "\(base)/v25.0/me")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self).contains("\"code\":2500"))

        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
