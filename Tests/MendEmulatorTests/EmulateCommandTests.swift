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
        // Waits for the ready line; the watchdog only keeps a hung process from hanging the suite.
        let running = process
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            running.terminate()
        }
        let lines = await output.fileHandleForReading.text(until: "\nready\n").split(separator: "\n").map(String.init)
        watchdog.cancel()
        #expect(lines.last == "ready")
        let base = try #require(lines.first { $0.hasPrefix("base URL: ") }?.dropFirst("base URL: ".count))
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let (data, response) = try await URLSession.shared.data(from: URL(string: "\(base)/v25.0/me")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self).contains("\"code\":2500"))

        kill(process.processIdentifier, signalNumber)
        await process.exited()
        #expect(process.terminationStatus == 0)
    }
}
