// swift-tools-version:6.1
//
// Mend: typed, classified, recoverable errors for remote APIs, and login without a vendor SDK.
//
// Dependency direction (fixed; checked by `scripts/check-client-dependencies.py` in the test command):
//
//   MendCore ◄── MendHTTP ◄─┬── MendGraphAPI ◄──┐
//                            ├── MendLogin ◄──────┴── MendFacebook   (Facebook as one provider: its dialect, its
//                            ├── MendGraphQL                          session authority, its presets)
//                            ├── MendHTTPURLSession                   (client-safe live transport)
//                            └── MendHTTPAsyncHTTPClient              (server/CLI live transport; SwiftNIO)
//   MendServing ◄── MendEmulator, MendServer      (the one run loop of the in-process servers; Hummingbird,
//                                                  ServiceLifecycle, swift-log only)
//   MendCore ◄── MendJOSE ◄── MendLogin, MendRecording, MendEmulator, MendServer   (JOSE, once: swift-crypto only)
//   MendLogin never reaches MendGraphAPI: a Google or OpenID Connect login builds without the Graph API.
//   MendEmulator, MendServer, MendServing, MendTesting: never depended on by a client module.
//   MendTesting: test targets, the session torture client and the benchmarks only; never MendCommands or the
//   shipping `mend` and `mend-server` executables.
//
// Error spaces live with the module that decodes them: MendCore holds the mechanism and the HTTP and transport
// spaces; MendHTTP the REST space; MendGraphAPI the Graph space (and the vendor SDK's userInfo keys); MendGraphQL
// the GraphQL space; MendLogin the login, session and OAuth spaces. So MendServer depends on MendLogin (it answers
// with login and session errors) and MendEmulator on MendGraphAPI, MendGraphQL and MendLogin (it emulates and lists
// every space).
//
// The client modules (MendCore, MendHTTP, MendGraphAPI, MendLogin, MendFacebook, MendGraphQL, MendHTTPURLSession)
// may only use swift-http-types, swift-log and swift-crypto.
//
// Package traits keep the server side out of an app's dependency graph. SwiftPM resolves every package that any
// product's target depends on, whichever product an app uses; a dependency that every target names only under a
// trait the app did not enable is not resolved at all. So an app that adds Mend, names no traits (as Xcode's Add
// Package does) and uses the client products resolves four packages: swift-http-types, swift-log, swift-crypto and
// swift-asn1 (`scripts/check-app-dependencies.py`, in the test command, resolves such an app and counts).
//
//   AsyncHTTPClient  MendHTTPAsyncHTTPClient, and MendClientTesting's loopback server: AsyncHTTPClient, SwiftNIO.
//   Telemetry        MendTelemetry: swift-distributed-tracing, swift-metrics.
//   Server           everything else: mend-server, the emulator, the `mend` tool, the test kits, the benchmarks
//                    (Hummingbird, the database drivers, jwt-kit, Graphiti, swift-otel, ...); it enables the two above.
//
// Working on Mend itself: `swift build --traits Server` (the test command passes it). Without it, `swift run mend`
// builds and says how to run it instead.

import Foundation
import PackageDescription

// `MEND_WITHOUT_OTLP=1` leaves the OTLP exporter (swift-otel) out of the build: MendTelemetryExport then refuses to
// export. The thread sanitizer's build sets it: under `-sanitize=thread`, Swift 6.3 rejects swift-otel 1.6.0's
// OTelBatchSpanProcessor ("sending 'logger' risks causing data races"), which compiles without the sanitizer.
let buildsOTLPExporter = ProcessInfo.processInfo.environment["MEND_WITHOUT_OTLP"] == nil

let package = Package(
    name: "Mend",
    // The floor: `Duration` and `ContinuousClock` (in public API) need these; no dependency declares more. Linux does
    // not check Apple availability when it compiles, so `scripts/check-availability.py` (in the test command) lists
    // every API any module here uses that needs more, from the build's index and the `@available` attributes of
    // Swift, Foundation and every dependency.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "MendCore", targets: ["MendCore"]),
        .library(name: "MendHTTP", targets: ["MendHTTP"]),
        .library(name: "MendResponseStore", targets: ["MendResponseStore"]),
        .library(name: "MendHTTPURLSession", targets: ["MendHTTPURLSession"]),
        .library(name: "MendHTTPAsyncHTTPClient", targets: ["MendHTTPAsyncHTTPClient"]),
        .library(name: "MendGraphAPI", targets: ["MendGraphAPI"]),
        .library(name: "MendLogin", targets: ["MendLogin"]),
        .library(name: "MendJOSE", targets: ["MendJOSE"]),
        .library(name: "MendWebAuthn", targets: ["MendWebAuthn"]),
        .library(name: "MendRecording", targets: ["MendRecording"]),
        .library(name: "MendTelemetry", targets: ["MendTelemetry"]),
        .library(name: "MendFacebook", targets: ["MendFacebook"]),
        .library(name: "MendGraphQL", targets: ["MendGraphQL"]),
        .library(name: "MendEmulator", targets: ["MendEmulator"]),
        .library(name: "MendServer", targets: ["MendServer"]),
        // The `signed_request` verifier of MendServer, on its own so that the fuzzers (Fuzz/) reach it without the
        // server stack. Its API is `@_spi(MendFuzzing)`: not part of Mend's public API.
        .library(name: "MendSignedRequest", targets: ["MendSignedRequest"]),
        .library(name: "MendClientTesting", targets: ["MendClientTesting"]),
        .library(name: "MendTesting", targets: ["MendTesting"]),
        .executable(name: "mend", targets: ["MendCLI"]),
        .executable(name: "mend-server", targets: ["MendServerMain"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "The AsyncHTTPClient transport (MendHTTPAsyncHTTPClient) and MendClientTesting's loopback "
                + "server: brings AsyncHTTPClient and SwiftNIO."
        ),
        .trait(
            name: "Telemetry",
            description: "Traces and metrics of every request (MendTelemetry): brings swift-distributed-tracing and "
                + "swift-metrics."
        ),
        .trait(
            name: "Server",
            description: "mend-server, the provider emulator, the `mend` tool, the server test kit (MendTesting) and "
                + "the benchmarks, with everything they bring (Hummingbird, SwiftNIO, the database drivers, jwt-kit, "
                + "Graphiti, swift-otel); enables AsyncHTTPClient and Telemetry.",
            enabledTraits: ["AsyncHTTPClient", "Telemetry"]
        ),
        // Off by default: an app that names no traits gets the client modules and their four packages only.
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Documentation only (`swift package generate-documentation`); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // MendHTTPAsyncHTTPClient and MendTesting (server side only; never reached by a client module)
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already in the graph through AsyncHTTPClient: MendHTTPAsyncHTTPClient reads a failed TLS handshake with it.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        // MendServer: the HTTP types' channel parts (what Hummingbird's pipeline carries), to answer a request the
        // parser refuses in Mend's error shape.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // MendEmulator (server side only; never reached by a client module)
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/GraphQLSwift/Graphiti.git", from: "3.1.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL.git", from: "4.3.0"),
        // Up to 4.x: jwt-kit 5.7.1 (the tests' and the benchmark's outside oracle) requires swift-crypto 4.1.0 or later.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // An outside oracle of MendJOSE in the tests, and the benchmark's peer: no target in Sources/ uses it.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // Already in the graph through jwt-kit and swift-crypto: the tests' loopback TLS server makes its certificates
        // with them (MendLoopbackTLS); no target in Sources/ uses them.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.2.0"),
        // MendServer (server side only; never reached by a client module)
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        // MendTelemetry (the tracing and metrics APIs only) and MendServer.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // The OTLP exporter of the executables only (`mend`, `mend-server`), over HTTP (its gRPC trait is off: no
        // gRPC in the build).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The OpenTelemetry conventions' attribute names, from the registry (mend-server; MendTelemetry, which apps
        // link, keeps its own few).
        .package(url: "https://github.com/swift-otel/swift-otel-semantic-conventions.git", from: "1.44.0"),
        // mend-server's configuration: typed, required reads from the environment (no trait: Mend reads its JSON
        // file itself).
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: []),
    ],
    targets: [
        // MARK: Client modules (no SwiftNIO, Hummingbird, AsyncHTTPClient, MendServer or MendEmulator)
        .target(name: "MendCore"),
        .target(
            name: "MendHTTP",
            dependencies: [
                "MendCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "MendHTTPURLSession", dependencies: ["MendHTTP"]),
        // The user's last good answers in a folder (crash-safe, optionally encrypted): MendHTTP's `LastKnownGood`
        // store across launches. Its own module, so that MendHTTP stays free of swift-crypto.
        .target(
            name: "MendResponseStore",
            dependencies: [
                "MendHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "MendGraphAPI",
            dependencies: [
                "MendHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // JOSE, once: keys, JWK, compact JWS, JWT claims and their times, for every signer and verifier in Mend.
        .target(
            name: "MendJOSE",
            dependencies: [
                "MendCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // WebAuthn (passkeys): authenticator data, attestation objects, client data, the spec's JSON serialization, a
        // relying party's checks and a software authenticator, over MendJOSE's CBOR and COSE keys. Client-safe:
        // mend-server verifies with it, MendLogin and the `mend` tool make ceremonies with it.
        .target(
            name: "MendWebAuthn",
            dependencies: ["MendCore", "MendJOSE", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "MendLogin",
            dependencies: [
                "MendHTTP", "MendJOSE", "MendWebAuthn",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "MendFacebook",
            dependencies: [
                "MendLogin", "MendGraphAPI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "MendGraphQL",
            dependencies: [
                "MendHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Record real traffic as HAR with every secret redacted, replay it (issue 30): a transport around any other.
        .target(
            name: "MendRecording",
            dependencies: [
                "MendHTTP", "MendJOSE",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Re-signing a recorded JWT at replay with a fixture key (RS256, ES256, EdDSA).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Traces and metrics of every request, to OpenTelemetry's conventions (issue 31): the pipeline's observer seam
        // (MendHTTP) to the tracing and metrics APIs; the exporter (swift-otel) is the app's, or the executables'.
        .target(
            name: "MendTelemetry",
            dependencies: [
                "MendNeedsTelemetry",
                "MendHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // One empty module per trait, which every module of that tier depends on: without the trait it stops the build
        // at once with one error naming the trait (a plain `swift build` of a clone, or a product used without its
        // trait), where the tier's own modules would fail first on `no such module 'Hummingbird'`.
        .target(name: "MendNeedsServer", path: "Sources/TraitChecks/Server"),
        .target(name: "MendNeedsAsyncHTTPClient", path: "Sources/TraitChecks/AsyncHTTPClient"),
        .target(name: "MendNeedsTelemetry", path: "Sources/TraitChecks/Telemetry"),

        // MARK: Server-side modules
        // Exporting traces and metrics over OTLP/HTTP from the `OTEL_*` variables: the executables' only link to
        // swift-otel (SwiftNIO, AsyncHTTPClient, SwiftProtobuf), never a client module's.
        .target(
            name: "MendTelemetryExport",
            dependencies: [
                "MendTelemetry", "MendHTTP",
                // The console exporter's spans.
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ] + (buildsOTLPExporter ? [.product(name: "OTel", package: "swift-otel")] : []),
            swiftSettings: buildsOTLPExporter ? [.define("MEND_OTLP")] : []
        ),
        // The run loop of every in-process server: start a Hummingbird application, report where it listens, stop
        // it gracefully (after a block, or on SIGTERM/SIGINT).
        .target(
            name: "MendServing",
            dependencies: [
                "MendNeedsServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "MendHTTPAsyncHTTPClient",
            dependencies: [
                "MendNeedsAsyncHTTPClient",
                "MendHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // A failed TLS handshake read in words (TLSFailure.swift); AsyncHTTPClient brings swift-nio-ssl.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "MendEmulator",
            dependencies: [
                // The error spaces it emulates and lists: Graph, GraphQL, REST (MendHTTP), login and session.
                "MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL", "MendLogin", "MendServing", "MendRecording",
                "MendJOSE", "MendDPoPCheck",
                // The headless consent browser's failures, classified as the app's own requests' are.
                "MendHTTPAsyncHTTPClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Graphiti", package: "Graphiti"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The servers' side of DPoP (RFC 9449): the check of a proof (mend-server's, the emulator's issuers'). A module
        // of its own so that no client module links a proof check (the dependency check says so).
        .target(name: "MendDPoPCheck", dependencies: ["MendCore", "MendJOSE"]),
        .target(
            name: "MendSignedRequest",
            dependencies: ["MendCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "MendServer",
            dependencies: [
                // MendLogin: the login and session error spaces it answers with.
                "MendCore", "MendHTTP", "MendGraphAPI", "MendLogin", "MendHTTPAsyncHTTPClient", "MendSignedRequest",
                "MendServing", "MendRecording", "MendTelemetry", "MendJOSE", "MendDPoPCheck", "MendWebAuthn",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTelSemanticConventions", package: "swift-otel-semantic-conventions"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The client test kit: the in-memory transport, a scripted loopback server, log capture, test clocks. No
        // Hummingbird, PostgresKit, SQLiteKit, JWTKit or Graphiti in its closure (the dependency check says so), so a
        // client-only test target builds without the server stack.
        .target(
            name: "MendClientTesting",
            dependencies: [
                "MendNeedsAsyncHTTPClient",
                "MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL", "MendLogin",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The server harness: the emulator and mend-server in a test, the fault proxy, built executables; it re-exports
        // the client kit, so `import MendTesting` is still all a test needs.
        .target(
            name: "MendTesting",
            dependencies: [
                "MendClientTesting", "MendHTTP", "MendEmulator", "MendServer", "MendLogin",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),

        // MARK: Executables
        .target(
            name: "MendCommands",
            dependencies: [
                "MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL", "MendEmulator", "MendHTTPAsyncHTTPClient",
                "MendLogin", "MendFacebook", "MendServer", "MendRecording", "MendServing", "MendTelemetry",
                "MendTelemetryExport", "MendJOSE", "MendResponseStore", "MendWebAuthn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `mend` executable: without the Server trait it has no commands and says how to run it with them.
        .executableTarget(
            name: "MendCLI", dependencies: [.target(name: "MendCommands", condition: .when(traits: ["Server"]))]),
        // `mend-server`'s commands (serve, generate-key, check-config, env, admin).
        .target(
            name: "MendServerCommands",
            dependencies: [
                "MendServer", "MendCore", "MendHTTP", "MendHTTPAsyncHTTPClient", "MendTelemetry", "MendTelemetryExport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The `mend-server` executable: as `mend`, without the Server trait it says how to run it.
        .executableTarget(
            name: "MendServerMain",
            dependencies: [.target(name: "MendServerCommands", condition: .when(traits: ["Server"]))]
        ),
        .executableTarget(
            name: "MendServerBenchmark",
            dependencies: [
                "MendServer", "MendTesting", "MendClientTesting", "MendEmulator", "MendServing", "MendLogin",
                "MendJOSE",
                "MendDPoPCheck",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/MendServerBenchmark"
        ),
        .executableTarget(
            name: "MendHTTPBenchmark",
            dependencies: [
                // No MendTesting: its own loopback server, so that a release build needs no server stack.
                "MendCore", "MendHTTP", "MendHTTPAsyncHTTPClient", "MendTelemetry", "MendClientTesting", "MendLogin",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Benchmarks/MendHTTPBenchmark"
        ),

        // MARK: Tests
        // Client-only test targets (MendCoreTests, MendHTTPTests, MendGraphAPITests, MendGraphQLTests, MendLoginTests):
        // the client modules and MendClientTesting, never the emulator or the server stack (the dependency check says
        // so). Tests that need a live emulator or mend-server are in the *IntegrationTests targets.
        // MendCore's mechanism, tested with the real error spaces (declared in the client modules).
        .testTarget(
            name: "MendCoreTests",
            dependencies: ["MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL", "MendLogin", "MendClientTesting"]
        ),
        // Tokens built by hand, byte for byte, with swift-crypto and not MendJOSE: the tests' outside view of every
        // surface that verifies a JWS (a target of the tests, not under Sources/: nothing in the product signs this way).
        .target(
            name: "MendHandMadeTokens",
            dependencies: ["MendCore", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/HandMadeTokens"
        ),
        // A loopback TLS server with certificates made at run time (a test authority, self-signed, expired, for
        // another name), for the tests of TLS failures (MendTLSTests, MendCommandsTests): a target of the tests.
        .target(
            name: "MendLoopbackTLS",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/LoopbackTLS"
        ),
        // MendJOSE's rules and the RFCs' own examples: MendJOSE and MendCore only.
        .testTarget(
            name: "MendJOSETests",
            dependencies: [
                "MendJOSE", "MendCore", "MendHandMadeTokens", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // CBOR, COSE keys and WebAuthn's checks: RFC 8949's appendix A, the W3C's test vectors, the software
        // authenticator's ceremonies.
        .testTarget(
            name: "MendWebAuthnTests",
            dependencies: [
                "MendWebAuthn", "MendJOSE", "MendCore", "MendClientTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Vectors")]
        ),
        .testTarget(
            name: "MendHTTPTests",
            dependencies: [
                "MendHTTP", "MendClientTesting", "MendHTTPAsyncHTTPClient", "MendHTTPURLSession", "MendGraphAPI",
                "MendLogin", "MendResponseStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // TLS failures in words, against a loopback TLS server with certificates made at run time: a target of its
        // own, so that the thread sanitizer's step (MendHTTPTests) does not rebuild swift-certificates with it.
        .testTarget(
            name: "MendTLSTests",
            dependencies: [
                "MendCore", "MendHTTP", "MendHTTPAsyncHTTPClient", "MendLoopbackTLS",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "MendGraphAPITests",
            dependencies: [
                "MendGraphAPI", "MendClientTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "MendGraphQLTests",
            dependencies: [
                "MendGraphQL", "MendClientTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MendLoginTests",
            dependencies: [
                "MendLogin", "MendFacebook", "MendClientTesting", "MendJOSE",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "MendRecordingTests",
            dependencies: [
                "MendRecording", "MendClientTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MendTelemetryTests",
            dependencies: [
                "MendTelemetry", "MendClientTesting", "MendGraphAPI", "MendLogin",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "MendRecordingIntegrationTests",
            dependencies: [
                "MendRecording", "MendGraphAPI", "MendGraphQL", "MendTesting", "MendEmulator",
                "MendHTTPAsyncHTTPClient", "MendLogin",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "MendGraphAPIIntegrationTests",
            dependencies: [
                "MendGraphAPI", "MendTesting", "MendEmulator", "MendHTTPAsyncHTTPClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "MendLoginIntegrationTests",
            dependencies: [
                "MendLogin", "MendFacebook", "MendTesting", "MendServer", "MendEmulator", "MendHTTPAsyncHTTPClient",
                "MendGraphAPI", "MendSignedRequest", "MendTelemetry", "MendJOSE", "MendHandMadeTokens",
                "MendResponseStore", "MendWebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Mend's client in the stale-answer scenario matrix (scripts/stale-peer-matrix.py), beside requests-cache and
        // hishel: a credentials manager, a file response store and the pipeline, driven over standard input.
        .executableTarget(
            name: "MendStaleMatrixClient",
            dependencies: [
                "MendHTTP", "MendLogin", "MendResponseStore", "MendHTTPAsyncHTTPClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/StaleMatrixClient"
        ),
        // A client process of the session torture test (MendLoginTests): several managers sharing one file store.
        .executableTarget(
            name: "MendSessionTortureClient",
            dependencies: [
                "MendLogin", "MendFacebook", "MendTesting", "MendHTTPAsyncHTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/SessionTortureClient"
        ),
        .testTarget(
            name: "MendGraphQLIntegrationTests",
            dependencies: ["MendGraphQL", "MendTesting", "MendEmulator", "MendHTTPAsyncHTTPClient"]
        ),
        .testTarget(
            name: "MendEmulatorTests",
            dependencies: [
                "MendEmulator", "MendTesting", "MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "MendCommandsTests",
            dependencies: [
                "MendCommands", "MendCLI", "MendCore", "MendGraphQL", "MendServer", "MendTesting", "MendLoopbackTLS",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MendServingTests",
            dependencies: [
                "MendServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MendServerTests",
            dependencies: [
                "MendLogin", "MendFacebook", "MendGraphAPI",
                "MendServer", "MendTesting", "MendEmulator", "MendCore", "MendHTTP", "MendHTTPAsyncHTTPClient",
                "MendSignedRequest", "MendRecording", "MendJOSE", "MendDPoPCheck", "MendHandMadeTokens", "MendWebAuthn",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The upgrade fixtures are read by path (UpgradeFixtureTests), not bundled.
            exclude: ["Fixtures"]
        ),
    ]
)

// Strict settings, applied in one place (as swift-log does).
for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}

// Traits (see the top of this file): every target's dependency on a package outside the client's own
// (swift-http-types, swift-log, swift-crypto) is named under the trait of the target's tier, so that SwiftPM does not
// resolve that package for an app that has not enabled the trait. `scripts/check-app-dependencies.py` counts.
let clientPackages: Set<String> = ["swift-http-types", "swift-log", "swift-crypto"]
let traitOfTier: [String: String] = [
    "MendHTTPAsyncHTTPClient": "AsyncHTTPClient", "MendClientTesting": "AsyncHTTPClient", "MendTelemetry": "Telemetry",
]
for target in package.targets {
    let trait = traitOfTier[target.name] ?? "Server"
    target.dependencies = target.dependencies.map { dependency in
        guard case .productItem(let name, let packageName?, let aliases, nil) = dependency,
            !clientPackages.contains(packageName)
        else { return dependency }
        return .productItem(name: name, package: packageName, moduleAliases: aliases, condition: .when(traits: [trait]))
    }
}

// `MEND_ONLY_TESTS=MendHTTPTests,MendLoginTests,…`: only these test targets and the targets they need (an executable
// only when it is named, as `MendCLI` for the `mend` binary that ProcessTests runs; no other tests). The thread sanitizer's step builds this way: everything it builds is rebuilt with -sanitize=thread,
// and it runs six suites — the tools, the server's own tests and the benchmarks would be built for nothing.
if let only = Context.environment["MEND_ONLY_TESTS"] {
    var needed: Set<String> = []
    var pending = only.split(separator: ",").map(String.init)
    while let name = pending.popLast() {
        guard needed.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else {
            continue
        }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll { product in
        if let library = product as? Product.Library { return !library.targets.allSatisfy(needed.contains) }
        if let executable = product as? Product.Executable { return !executable.targets.allSatisfy(needed.contains) }
        return true
    }
}
