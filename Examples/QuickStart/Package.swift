// swift-tools-version:6.1
// An app that uses Mend as any app would: by its public API only, with the client modules only (no server code,
// no SwiftNIO): log in without a vendor SDK, call the Graph API, and handle every error category.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v13), .iOS(.v16)],  // the floor Mend declares: an app on these systems can link it
    dependencies: [.package(name: "Mend", path: "../..")],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [
                .product(name: "MendLogin", package: "Mend"),
                .product(name: "MendFacebook", package: "Mend"),
                .product(name: "MendGraphAPI", package: "Mend"),
                .product(name: "MendHTTPURLSession", package: "Mend"),
            ]
        )
    ]
)
