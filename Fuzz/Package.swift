// swift-tools-version:6.1
//
// Mend's libFuzzer fuzzers: one executable, `mend-fuzz`, whose target is chosen with MEND_FUZZ_TARGET.
//
// A package of its own (it depends on the root package by path), so that the fuzzer's entry point does not clash with
// the `mend` CLI and the server stack is neither built nor instrumented. Build and run it with `scripts/fuzz`, which
// builds with `-sanitize=fuzzer,address` in the scratch path `.build-fuzz`.

import PackageDescription

let package = Package(
    name: "MendFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Mend", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The harnesses: one function per target, each checking invariants, not only that nothing crashes.
        .target(
            name: "MendFuzzTargets",
            dependencies: [
                .product(name: "MendCore", package: "Mend"),
                .product(name: "MendHTTP", package: "Mend"),
                .product(name: "MendGraphAPI", package: "Mend"),
                .product(name: "MendGraphQL", package: "Mend"),
                .product(name: "MendLogin", package: "Mend"),
                .product(name: "MendRecording", package: "Mend"),
                .product(name: "MendSignedRequest", package: "Mend"),
                .product(name: "MendJOSE", package: "Mend"),
                .product(name: "MendWebAuthn", package: "Mend"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // libFuzzer's driver (declared; the toolchain's libclang_rt.fuzzer defines it).
        .target(name: "CLibFuzzer"),
        // The binary: libFuzzer's entry point (`LLVMFuzzerTestOneInput`), and a `main` that starts libFuzzer's driver.
        .executableTarget(
            name: "mend-fuzz", dependencies: ["MendFuzzTargets", "CLibFuzzer"], path: "Sources/MendFuzz"),
    ]
)

for target in package.targets where target.name != "CLibFuzzer" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
