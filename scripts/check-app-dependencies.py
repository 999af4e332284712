#!/usr/bin/env python3
"""An app that adds Mend as the README says resolves at most four third-party packages.

Makes the app an app developer would: a new package whose manifest holds README.md's install snippet verbatim (the
`.package(url:from:)` line, which names no traits, as Xcode's Add Package does) and depends on every client product
(MendCore, MendHTTP, MendHTTPURLSession, MendGraphAPI, MendGraphQL, MendLogin, MendFacebook, MendRecording). There is
no public URL here, so the snippet's URL is mirrored (`swift package config set-mirror`) to a `file://` repository
made from this working tree (tracked and untracked files, not ignored ones) and tagged with the current version
(`MendVersion.current`). The app resolves from nothing (no Package.resolved, a new folder); its pins are counted,
Mend's own left out. More than the bound fails, naming them.

    scripts/check-app-dependencies.py              # resolve and count (about 10 s)
    scripts/check-app-dependencies.py --keep DIR   # and leave the app and the repository in DIR
    scripts/check-app-dependencies.py --build-readme-code SCRATCH

`--build-readme-code` then builds README.md's code as an app would: the app of the install snippet, its products
depending on this tree by path (so that `SCRATCH`, Examples/QuickStart's build folder, already holds every Mend module
and dependency, and only the app compiles: well under a minute), its `main.swift` made of each ```swift block of
README.md marked `<!-- readme-code: builds -->` — the block's imports at the top, the rest inside an
`async throws` function whose parameters and helpers are the placeholders the README names (`backendURL`, `show`).
Every ```swift block after the install snippet must carry a mark: `builds`, `excerpt` or `apple-only` (the README
says which in words); an unmarked block fails the check, so a new block is either built or said to be an excerpt.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOUND = 4
CLIENT_PRODUCTS = [
    "MendCore", "MendHTTP", "MendHTTPURLSession", "MendGraphAPI", "MendGraphQL", "MendLogin", "MendFacebook",
    "MendRecording",
]


def current_version():
    source = open(os.path.join(ROOT, "Sources/MendCore/Support/MendVersion.swift")).read()
    match = re.search(r'public static let current = "([0-9]+\.[0-9]+\.[0-9]+)"', source)
    if not match:
        sys.exit("check-app-dependencies: no `MendVersion.current` in Sources/MendCore/Support/MendVersion.swift")
    return match.group(1)


def install_snippet():
    """The README's install snippet: the first ```swift block under the "Add Mend to an app" heading."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    section = re.search(r"^## Add Mend to an app\n(.*?)(?=^## )", readme, re.S | re.M)
    if not section:
        sys.exit("check-app-dependencies: README.md has no '## Add Mend to an app' section")
    block = re.search(r"```swift\n(.*?)```", section.group(1), re.S)
    if not block:
        sys.exit("check-app-dependencies: the README's install section has no ```swift block")
    snippet = block.group(1)
    package_line = re.search(r'^\s*(\.package\(url: "([^"]+)", from: "([^"]+)"\)),?\s*$', snippet, re.M)
    if not package_line:
        sys.exit("check-app-dependencies: the README's snippet has no `.package(url: …, from: …)` line")
    products = re.findall(r'\.product\(name: "([A-Za-z]+)", package: "([^"]+)"\)', snippet)
    if not products:
        sys.exit("check-app-dependencies: the README's snippet names no product")
    return package_line.group(1), package_line.group(2), package_line.group(3), products


def run(args, cwd, **kwargs):
    return subprocess.run(args, cwd=cwd, check=True, text=True, **kwargs)


def make_repository(destination, version):
    """This working tree as a git repository tagged `version`: what a tagged release would hold."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
        capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = os.path.join(ROOT, name)
        if not os.path.isfile(source):
            continue  # deleted in the working tree, not yet in the index
        target = os.path.join(destination, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    quiet = {"stdout": subprocess.DEVNULL}
    run(["git", "init", "-q"], destination)
    run(["git", "add", "-A"], destination)
    run(["git", "-c", "user.name=check", "-c", "user.email=check@localhost", "commit", "-q", "-m", version],
        destination, **quiet)
    run(["git", "tag", version], destination)


# What the README's built blocks may use without declaring it: the placeholders its words name.
README_PLACEHOLDERS = """\
func show(_ message: String, reference: String?) {}
"""
README_CODE_MARKS = ("builds", "excerpt", "apple-only")


def readme_blocks():
    """Each ```swift block of README.md after the install section, with its mark (None when it has none)."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    after = readme.split("## Add Mend to an app", 1)[1].split("```", 2)[2]  # past the install snippet
    blocks = []
    for match in re.finditer(r"(?:<!-- readme-code: ([a-z-]+) -->\n)?```swift\n(.*?)```", after, re.S):
        blocks.append((match.group(1), match.group(2)))
    return blocks


def readme_main(blocks):
    """main.swift: the built blocks' imports, then each block's body in an async throwing function."""
    imports, bodies = [], []
    for position, code in enumerate(blocks):
        lines = code.splitlines()
        imports += [line.split("//")[0].strip() for line in lines if line.startswith("import ")]
        body = "\n".join("    " + line if line else "" for line in lines if not line.startswith("import "))
        bodies.append(f"func readmeBlock{position}(backendURL: URL) async throws {{\n{body}\n}}\n")
    unique = list(dict.fromkeys(imports))
    return "\n".join(unique) + "\n\n" + README_PLACEHOLDERS + "\n" + "\n".join(bodies) + 'print("README code")\n'


def build_readme_code(scratch, work, products, identity):
    """Builds README.md's marked blocks in the snippet's app, Mend by path, in `scratch`; exits on a failure."""
    blocks = readme_blocks()
    unmarked = [code.splitlines()[0] for mark, code in blocks if mark not in README_CODE_MARKS]
    if unmarked:
        sys.exit("check-app-dependencies: README.md has ```swift blocks without <!-- readme-code: builds|excerpt|"
                 f"apple-only -->: {unmarked}")
    built = [code for mark, code in blocks if mark == "builds"]
    if not built:
        sys.exit("check-app-dependencies: README.md marks no block `readme-code: builds`")
    app = os.path.join(work, "ReadmeApp")
    shutil.rmtree(app, ignore_errors=True)
    os.makedirs(os.path.join(app, "Sources/ReadmeApp"))
    # Mend by path and by the name Examples/QuickStart gives it: the same package there, so nothing is rebuilt.
    product_lines = ",\n".join(f'                .product(name: "{name}", package: "Mend")' for name in products)
    with open(os.path.join(app, "Package.swift"), "w") as handle:
        handle.write(f"""// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "ReadmeApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "Mend", path: "{ROOT}")],
    targets: [
        .executableTarget(
            name: "ReadmeApp",
            dependencies: [
{product_lines}
            ]
        )
    ]
)
""")
    with open(os.path.join(app, "Sources/ReadmeApp/main.swift"), "w") as handle:
        handle.write(readme_main(built))
    # The versions Examples/QuickStart resolved, so that nothing is fetched or rebuilt.
    resolved = os.path.join(ROOT, "Examples/QuickStart/Package.resolved")
    if os.path.exists(resolved):
        shutil.copy(resolved, os.path.join(app, "Package.resolved"))
    result = subprocess.run(["swift", "build", "--package-path", app, "--scratch-path", scratch], text=True,
                            capture_output=True)
    if result.returncode != 0:
        sys.exit("check-app-dependencies: README.md's code does not build as written "
                 f"({app}/Sources/ReadmeApp/main.swift):\n{result.stdout[-6000:]}{result.stderr[-3000:]}")
    print(f"README.md's code ({len(built)} block(s) marked `builds`, with the install snippet's products: "
          f"{', '.join(products)}) builds; {len(blocks) - len(built)} block(s) marked excerpt or apple-only.")


def main():
    keep = None
    build_scratch = None
    if sys.argv[1:2] == ["--keep"]:
        keep = sys.argv[2]
    if sys.argv[1:2] == ["--build-readme-code"]:
        build_scratch = os.path.abspath(sys.argv[2])
    version = current_version()
    package_line, url, from_version, snippet_products = install_snippet()
    if from_version != version:
        sys.exit(f"check-app-dependencies: the README's snippet asks for {from_version}, MendVersion is {version}")
    identity = snippet_products[0][1]
    work = keep or tempfile.mkdtemp(prefix="mend-app-check.")
    os.makedirs(work, exist_ok=True)
    repository = os.path.join(work, "mend")
    app = os.path.join(work, "App")
    for folder in (repository, app):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    try:
        make_repository(repository, version)
        products = [name for name, _ in snippet_products]
        products += [name for name in CLIENT_PRODUCTS if name not in products]
        product_lines = ",\n".join(
            f'                .product(name: "{name}", package: "{identity}")' for name in products)
        manifest = f"""// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        {package_line},
    ],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [
{product_lines}
            ]
        )
    ]
)
"""
        os.makedirs(os.path.join(app, "Sources/App"))
        with open(os.path.join(app, "Package.swift"), "w") as handle:
            handle.write(manifest)
        with open(os.path.join(app, "Sources/App/main.swift"), "w") as handle:
            handle.write("".join(f"import {name}\n" for name in products) + 'print("app")\n')
        run(["swift", "package", "config", "set-mirror", "--original", url, "--mirror", f"file://{repository}"], app)
        run(["swift", "package", "resolve"], app, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        pins = json.load(open(os.path.join(app, "Package.resolved")))["pins"]
        others = sorted(pin["identity"] for pin in pins if pin["location"] != f"file://{repository}"
                        and pin["identity"] != identity)
        print(f"An app with Mend {version}'s install snippet and every client product "
              f"({', '.join(products)}), naming no traits, resolves {len(others)} third-party packages: "
              f"{', '.join(others)} (bound: {BOUND}).")
        if len(others) > BOUND:
            sys.exit(f"check-app-dependencies: {len(others)} packages, more than {BOUND}: a client product's "
                     "dependency graph reaches a package that no trait guards (Package.swift, 'Traits')")
        if build_scratch:
            build_readme_code(build_scratch, work, [name for name, _ in snippet_products], identity)
    except subprocess.CalledProcessError as error:
        sys.exit(f"check-app-dependencies: {' '.join(error.cmd)} failed: {error.stderr or ''}")
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
