#!/usr/bin/env python3
"""Proves that Mend's client modules never depend, even transitively, on server-side code.

Reads the package graph from `swift package describe --type json` (targets, their target and product
dependencies) and `swift package show-dependencies --format json` (the package dependency tree), then walks
every client module's dependencies. A product of an external package counts as a dependency on that package
and, conservatively, on everything that package depends on. Exits non-zero and names the path when a client
module reaches a forbidden package (SwiftNIO, Hummingbird, AsyncHTTPClient) or target (MendServer,
MendEmulator, MendServing, MendTesting, or a client module it must stay independent of: MendLogin never reaches
MendGraphAPI or MendFacebook), or a package outside the module's own allowed list.

Also proves that the client test kit (MendClientTesting) and the client-only test targets build without the
server stack: no MendServer, MendEmulator, MendServing or MendTesting, and no Hummingbird, PostgresKit, SQLiteKit,
SQLKit, JWTKit, Graphiti or GraphQL in their closure (SwiftNIO and AsyncHTTPClient are allowed there: the loopback
server and the live transport's tests use them).

Also proves that the shipping executables (`mend`: MendCLI and MendCommands; `mend-server`: MendServerMain) never
link MendTesting, even transitively.
"""
import json
import subprocess
import sys

FORBIDDEN_TARGETS = {
    "MendServer", "MendEmulator", "MendHTTPAsyncHTTPClient", "MendServing", "MendTesting",
    # The servers' DPoP proof check: a client makes proofs (MendJOSE), it never checks them.
    "MendDPoPCheck",
}
FORBIDDEN_PACKAGES = {"swift-nio", "hummingbird", "async-http-client"}
CRYPTO = {"swift-crypto", "swift-asn1"}  # swift-asn1 comes with swift-crypto's _CryptoExtras
# Each client module: the packages it may use, and the Mend modules it must not reach besides the server side.
# MendLogin is provider-neutral: Facebook (its dialect, the Graph API) is MendFacebook, over MendLogin and
# MendGraphAPI, so that a Google or OpenID Connect login builds without either.
CLIENT_MODULES = {
    "MendCore": (set(), set()),
    # JOSE (keys, JWK, compact JWS, claims): MendCore and swift-crypto only, under every module that signs or verifies.
    "MendJOSE": (CRYPTO, {"MendHTTP", "MendLogin", "MendFacebook", "MendGraphAPI", "MendGraphQL", "MendRecording",
                          "MendTelemetry"}),
    # WebAuthn (passkeys): CBOR and COSE keys from MendJOSE, swift-crypto; under MendLogin and mend-server alike.
    "MendWebAuthn": (CRYPTO, {"MendHTTP", "MendLogin", "MendFacebook", "MendGraphAPI", "MendGraphQL", "MendRecording",
                              "MendTelemetry"}),
    "MendHTTP": ({"swift-http-types", "swift-log"}, set()),
    "MendHTTPURLSession": ({"swift-http-types", "swift-log"}, set()),
    # The user's last good answers in a folder: MendHTTP and swift-crypto (encryption, the files' names).
    "MendResponseStore": ({"swift-http-types", "swift-log"} | CRYPTO, {"MendLogin", "MendFacebook", "MendGraphAPI",
                                                                        "MendGraphQL", "MendRecording", "MendTelemetry"}),
    "MendGraphAPI": ({"swift-http-types", "swift-log"}, {"MendLogin", "MendFacebook"}),
    "MendGraphQL": ({"swift-http-types", "swift-log"}, {"MendLogin", "MendFacebook", "MendGraphAPI"}),
    "MendLogin": ({"swift-http-types", "swift-log"} | CRYPTO, {"MendGraphAPI", "MendFacebook", "MendGraphQL"}),
    "MendFacebook": ({"swift-http-types", "swift-log"} | CRYPTO, {"MendGraphQL"}),
    # Recording and replay (issue 30): a transport around any other, for every client; no provider module.
    "MendRecording": ({"swift-http-types", "swift-log"} | CRYPTO, {"MendLogin", "MendFacebook", "MendGraphAPI", "MendGraphQL"}),
    # Traces and metrics (issue 31): the tracing and metrics APIs and nothing else; the exporter is the app's.
    "MendTelemetry": (
        {"swift-http-types", "swift-log", "swift-distributed-tracing", "swift-metrics"},
        {"MendLogin", "MendFacebook", "MendGraphAPI", "MendGraphQL"}),
}
# The client test kit and the client-only test targets: what they must not reach (the server stack).
CLIENT_TEST_TARGETS = [
    "MendClientTesting", "MendCoreTests", "MendJOSETests", "MendHTTPTests", "MendGraphAPITests", "MendGraphQLTests", "MendLoginTests",
    "MendRecordingTests", "MendTelemetryTests", "MendTLSTests", "MendWebAuthnTests",
]
SERVER_TARGETS = {
    "MendServer", "MendEmulator", "MendServing", "MendTesting", "MendCommands", "MendSignedRequest", "MendDPoPCheck",
}
SERVER_PACKAGES = {
    "hummingbird", "postgres-kit", "sqlite-kit", "sql-kit", "jwt-kit", "graphiti", "graphql",
}
# The targets of the shipping executables, and the test support they must never link.
SHIPPING_MODULES = ["MendCLI", "MendCommands", "MendServerMain"]
TEST_ONLY_TARGETS = {"MendTesting"}


def run(*args):
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def package_closure(tree):
    """Maps each package identity to the set of identities it depends on, transitively."""
    closure = {}

    def visit(node):
        identity = node["identity"].lower()
        deps = set()
        for child in node.get("dependencies", []):
            deps.add(child["identity"].lower())
            deps |= visit(child)
        closure[identity] = closure.get(identity, set()) | deps
        return deps

    visit(tree)
    return closure


def main():
    description = run("swift", "package", "--traits", "Server", "describe", "--type", "json")
    tree = run("swift", "package", "--traits", "Server", "show-dependencies", "--format", "json")
    closure = package_closure(tree)
    targets = {t["name"]: t for t in description["targets"]}
    # product name -> package identity, from each dependency's manifest
    product_package = {}
    for dependency in description.get("dependencies", []):
        identity = dependency["identity"].lower()
        path = None
        for node in [tree] + list(walk(tree)):
            if node["identity"].lower() == identity:
                path = node["path"]
        if path is None:
            continue
        manifest = run("swift", "package", "--package-path", path, "dump-package")
        for product in manifest.get("products", []):
            product_package.setdefault(product["name"], identity)

    def reach(module, forbidden, failures, on_target=None):
        """Walks `module`'s target dependencies; a path into `forbidden` is a failure. Returns the targets seen."""
        if module not in targets:
            failures.append(f"{module}: not a target of the package")
            return set()
        seen, stack = set(), [(module, [module])]
        while stack:
            name, path = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            for dep in targets[name].get("target_dependencies", []):
                if dep in forbidden:
                    failures.append(" -> ".join(path + [dep]))
                elif dep in targets:
                    stack.append((dep, path + [dep]))
            if on_target:
                on_target(name, path)
        return seen

    failures = []

    def check_products(name, path, allowed):
        for product in targets[name].get("product_dependencies", []):
            package = product_package.get(product)
            if package is None:
                failures.append(" -> ".join(path + [f"{product} (unknown product)"]))
                continue
            reached = {package} | closure.get(package, set())
            bad = reached & FORBIDDEN_PACKAGES
            outside = reached - allowed
            for item in sorted(bad | outside):
                failures.append(" -> ".join(path + [f"{product} ({package})", item]))

    for module, (allowed, forbidden) in CLIENT_MODULES.items():
        seen = reach(
            module, FORBIDDEN_TARGETS | forbidden, failures,
            lambda name, path, allowed=allowed: check_products(name, path, allowed))
        if seen:
            print(f"{module}: depends on {', '.join(sorted(seen - {module})) or 'no other target'}")

    def check_server_packages(name, path):
        for product in targets[name].get("product_dependencies", []):
            package = product_package.get(product)
            if package is None:
                failures.append(" -> ".join(path + [f"{product} (unknown product)"]))
                continue
            for item in sorted(({package} | closure.get(package, set())) & SERVER_PACKAGES):
                failures.append(" -> ".join(path + [f"{product} ({package})", item]))

    for module in CLIENT_TEST_TARGETS:
        seen = reach(module, SERVER_TARGETS, failures, check_server_packages)
        if seen:
            print(f"{module} (client tests): depends on {', '.join(sorted(seen - {module})) or 'no other target'}")

    shipping_failures = []
    for module in SHIPPING_MODULES:
        reach(module, TEST_ONLY_TARGETS, shipping_failures)

    if failures:
        print("\nClient modules must not reach server-side code, nor a client module they stay independent of. "
              "Offending paths:")
        for failure in sorted(set(failures)):
            print("  " + failure)
    if shipping_failures:
        print("\nThe shipping executables must not link test support. Offending paths:")
        for failure in sorted(set(shipping_failures)):
            print("  " + failure)
    if failures or shipping_failures:
        return 1
    print(
        "client dependency check: passed (no SwiftNIO, Hummingbird, AsyncHTTPClient, MendServer, MendEmulator or "
        "MendServing); the client test kit and client-only test targets reach no server stack; mend and mend-server do "
        "not link MendTesting"
    )
    return 0


def walk(node):
    for child in node.get("dependencies", []):
        yield child
        yield from walk(child)


if __name__ == "__main__":
    sys.exit(main())
