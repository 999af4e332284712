// swift-tools-version:6.1
//
// Mend: typed, classified, recoverable errors for remote APIs, and login without a vendor SDK.
//
// Dependency direction (fixed; checked by `scripts/check-client-dependencies.py` in the test command):
//
//   MendCore ◄── MendHTTP ◄── MendGraphAPI / MendLogin / MendGraphQL
//                   ▲ ◄── MendHTTPURLSession        (client-safe live transport)
//                   └──── MendHTTPAsyncHTTPClient   (server/CLI live transport)
//   MendEmulator, MendServer, MendTesting: never depended on by a client module.
//
// The client modules (MendCore, MendHTTP, MendGraphAPI, MendLogin, MendGraphQL, MendHTTPURLSession)
// may only use swift-http-types, swift-log and swift-crypto.

import PackageDescription

let package = Package(
    name: "Mend",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "MendCore", targets: ["MendCore"]),
        .library(name: "MendHTTP", targets: ["MendHTTP"]),
        .library(name: "MendHTTPURLSession", targets: ["MendHTTPURLSession"]),
        .library(name: "MendHTTPAsyncHTTPClient", targets: ["MendHTTPAsyncHTTPClient"]),
        .library(name: "MendGraphAPI", targets: ["MendGraphAPI"]),
        .library(name: "MendLogin", targets: ["MendLogin"]),
        .library(name: "MendGraphQL", targets: ["MendGraphQL"]),
        .library(name: "MendEmulator", targets: ["MendEmulator"]),
        .library(name: "MendServer", targets: ["MendServer"]),
        .library(name: "MendTesting", targets: ["MendTesting"]),
        .executable(name: "mend", targets: ["MendCLI"]),
        .executable(name: "mend-server", targets: ["MendServerMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
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
        .target(name: "MendGraphAPI", dependencies: ["MendHTTP"]),
        .target(name: "MendLogin", dependencies: ["MendHTTP"]),
        .target(name: "MendGraphQL", dependencies: ["MendHTTP"]),

        // MARK: Server-side modules
        .target(name: "MendHTTPAsyncHTTPClient", dependencies: ["MendHTTP"]),
        .target(name: "MendEmulator", dependencies: ["MendCore"]),
        .target(name: "MendServer", dependencies: ["MendHTTP", "MendGraphAPI"]),
        .target(name: "MendTesting", dependencies: ["MendHTTP", "MendEmulator"]),

        // MARK: Executables
        .target(
            name: "MendCommands",
            dependencies: [
                "MendCore", "MendHTTP", "MendGraphAPI", "MendGraphQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "MendCLI", dependencies: ["MendCommands"]),
        .executableTarget(name: "MendServerMain", dependencies: ["MendServer"]),

        // MARK: Tests
        .testTarget(name: "MendCoreTests", dependencies: ["MendCore"]),
        .testTarget(
            name: "MendHTTPTests",
            dependencies: ["MendHTTP", "MendTesting", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(
            name: "MendGraphAPITests",
            dependencies: ["MendGraphAPI", .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(name: "MendGraphQLTests", dependencies: ["MendGraphQL"]),
        .testTarget(
            name: "MendCommandsTests",
            dependencies: ["MendCommands", "MendCLI", "MendCore", "MendGraphQL"],
            resources: [.copy("Fixtures")]
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
