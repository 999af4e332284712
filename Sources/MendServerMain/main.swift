// `mend-server`: runs the MendServer application, configured from the environment and/or a JSON file
// (MEND_CONFIG_FILE), until SIGTERM or SIGINT (graceful: requests in flight finish, then the database closes).
//
//   mend-server                              run
//   mend-server generate-key [EdDSA|ES256]   print a new signing key for MEND_SIGNING_KEYS
//   mend-server check-config                 read and validate the configuration, then exit
//   mend-server env                          list the environment variables
import Foundation
import Logging
import MendServer
import Metrics
import ServiceLifecycle
import UnixSignals

let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ message: String, code: Int32 = 78) -> Never {
    FileHandle.standardError.write(Data("mend-server: \(message)\n".utf8))
    exit(code)
}

switch arguments.first {
case "generate-key":
    let name = arguments.dropFirst().first ?? "EdDSA"
    guard
        let algorithm = SigningKeyConfiguration.Algorithm.allCases.first(where: {
            $0.rawValue.lowercased() == name.lowercased()
        })
    else { fail("unknown algorithm '\(name)' (EdDSA, ES256)", code: 64) }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyyMMdd"
    let key = SigningKeyConfiguration.generate(keyID: "k\(formatter.string(from: Date()))", algorithm: algorithm)
    print(key.environmentValue)
    exit(0)
case "env":
    for variable in ServerConfiguration.environmentVariables {
        print("\(variable.name.padding(toLength: 30, withPad: " ", startingAt: 0)) \(variable.meaning)")
    }
    exit(0)
case "-h", "--help", "help":
    print(
        """
        mend-server: the login backend (code exchange, sessions, provider callbacks).
          mend-server                              run (configured by MEND_* variables and DATABASE_URL)
          mend-server generate-key [EdDSA|ES256]   print a new signing key for MEND_SIGNING_KEYS
          mend-server check-config                 validate the configuration and exit
          mend-server env                          list the environment variables
        """)
    exit(0)
case nil, "serve", "check-config":
    break
case let other?:
    fail("unknown command '\(other)'; see mend-server --help", code: 64)
}

let configuration: ServerConfiguration
do {
    configuration = try ServerConfiguration.load()
} catch {
    fail("configuration: \(error)")
}
if arguments.first == "check-config" {
    print("configuration ok")
    exit(0)
}

let level = ProcessInfo.processInfo.environment["MEND_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = level
    return handler
}
let logger: Logger = {
    var logger = Logger(label: "mend.server")
    logger.logLevel = level
    return logger
}()

let metrics = ServerMetrics()
MetricsSystem.bootstrap(metrics.metricsFactory)

do {
    let app = try await buildApplication(configuration: configuration, logger: logger, metrics: metrics) { port in
        logger.notice(
            "mend-server ready", metadata: ["host": .string(configuration.host), "port": .stringConvertible(port)])
    }
    let group = ServiceGroup(
        configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
} catch {
    fail("\(error)", code: 1)
}
