import Foundation
import MendEmulator
import MendTesting
import Testing

/// `mend graph --max-stale` as a user runs it: a login, an answer kept, a 503 answered with it (said on standard
/// error), another failure not, and `mend logout` deleting what was kept.
@Suite("mend graph --max-stale")
struct MaxStaleCommandTests {
    @Test("keeps the logged-in user's answer, serves it stale through a transient failure only, and logout deletes it")
    func maxStale() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withEmulator(configuration: EmulatorConfiguration(autoConsent: .grantAll)) { emulator in
            let login = try await MendBinary.run([
                "login", "--base-url", emulator.baseURL.absoluteString, "--app-id", EmulatedApp.default.id,
                "--headless", "--state-directory", directory.path,
            ])
            #expect(login.status == 0, "\(login.stderr)")
            let graph = [
                "graph", "GET", "me", "--fields", "id,name", "--max-stale", "1h", "--state-directory", directory.path,
            ]
            let first = try await MendBinary.run(graph, environment: ["MEND_ACCESS_TOKEN": nil])
            #expect(first.status == 0 && first.stdout.contains("Alice Example"), "\(first.stderr)")
            try await emulator.inject(FaultRule.error("graph/2", path: "/me"))
            let stale = try await MendBinary.run(graph, environment: ["MEND_ACCESS_TOKEN": nil])
            #expect(stale.status == 0 && stale.stdout.contains("Alice Example"), "\(stale.stderr)")
            #expect(stale.stderr.contains("stale, ") && stale.stderr.contains("(graph/2)"), "\(stale.stderr)")
            // Without --max-stale the failure is the answer.
            let plain = try await MendBinary.run(Array(graph.prefix(5)) + ["--state-directory", directory.path])
            #expect(plain.status == 1, "\(plain.stdout)")
            // A failure that is not transient is never answered from the store.
            await emulator.emulator.removeAllFaults()
            try await emulator.inject(FaultRule.error("graph/100", path: "/me"))
            let invalid = try await MendBinary.run(graph, environment: ["MEND_ACCESS_TOKEN": nil])
            #expect(invalid.status == 1 && !invalid.stderr.contains("stale, "), "\(invalid.stderr)")
            await emulator.emulator.removeAllFaults()
            let answers = directory.appendingPathComponent("answers")
            #expect(!(FileManager.default.subpaths(atPath: answers.path) ?? []).filter { !$0.hasPrefix(".") }.isEmpty)
            let logout = try await MendBinary.run(["logout", "--state-directory", directory.path])
            #expect(logout.status == 0, "\(logout.stderr)")
            let left = (FileManager.default.enumerator(atPath: answers.path)?.allObjects as? [String] ?? [])
                .filter {
                    (try? FileManager.default.attributesOfItem(atPath: answers.appendingPathComponent($0).path))?[.type]
                        as? FileAttributeType == .typeRegular
                }
            #expect(left.isEmpty, "left after logout: \(left)")
            // With a token instead of a session, nothing can be kept, and it says so.
            let token = try await MendBinary.run(
                [
                    "graph", "GET", "me", "--base-url", emulator.baseURL.absoluteString, "--token", "EAAnotASession",
                    "--max-stale", "1h",
                ])
            #expect(token.stderr.contains("--max-stale keeps answers only for the session of `mend login`"))
            let typo = try await MendBinary.run(graph.dropLast(2) + ["--max-stale", "soon"])
            #expect(typo.status == 64 && typo.stderr.contains("--max-stale takes an age"), "\(typo.stderr)")
        }
    }
}
