#!/usr/bin/env python3
"""Lists every API Mend's modules use that needs more than iOS 16 / macOS 13 / tvOS 16 / watchOS 9 / visionOS 1.

The package declares those systems as its floor (Package.swift), for every module: the client modules that apps
link, and the server side (the emulator, mend-server, the CLI, the tests and the benchmarks) that developers build on
their Macs. Linux does not check Apple availability when it compiles, so this script does it from two facts the
toolchain gives:

- what the modules use: every symbol occurrence the compiler wrote into the build's index store (read with the
  toolchain's libIndexStore through ctypes), for the source files of each target of the package;
- when each API became available: the `@available` attributes of the Swift, Concurrency, Synchronization, string
  processing and Foundation modules and of every dependency module the build holds, from
  `swift symbolgraph-extract` (a member counts as new as its newest enclosing type or extension).

A use of an API introduced after the floor (or unavailable there) is a finding, and so is any
`import Synchronization` (its `Mutex` and `Atomic` need iOS 18 / macOS 15; Mend uses MendCore's `Locked`). A finding
is accepted when an `@available` or `#available` around the use names systems that have the API (read from the
source: the index does not record them), or by a line of scripts/availability-allowlist.txt
(`<file> <symbol>  # reason`). Exit status: 0 nothing found, 1 findings, 2 the check
could not run (no index for a module, or no availability read for the standard library).

    scripts/check-availability.py              # after `swift build --traits Server --build-tests`: every target of this package
    scripts/check-availability.py --self-test  # proves the check can fail (builds a probe module)

Foundation's availability is read from swift-foundation's interface here, which mirrors the Apple SDK's for the
API both have; an API only Apple's Foundation has is not built on Linux and so never reaches this check, and neither
does code under `#if canImport(Darwin)` or another Apple-only condition.
"""
import concurrent.futures
import ctypes
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOOR = {"iOS": (16, 0), "macOS": (13, 0), "tvOS": (16, 0), "watchOS": (9, 0), "visionOS": (1, 0)}
SYSTEM_MODULES = [
    "Swift", "_Concurrency", "Synchronization", "_StringProcessing", "RegexBuilder", "FoundationEssentials",
    "FoundationInternationalization", "Foundation", "FoundationNetworking", "Dispatch",
]
REQUIRED_MODULES = ["Swift", "_Concurrency", "FoundationEssentials"]
ALLOWLIST = os.path.join(ROOT, "scripts", "availability-allowlist.txt")
SCRATCH = os.path.join(ROOT, ".build", "availability")

ROLE_DECLARATION = 1 << 0
ROLE_DEFINITION = 1 << 1
ROLE_IMPLICIT = 1 << 8
# Implicit uses the compiler makes only where they are available: `for await` and an AsyncIteratorProtocol
# conformance call `next(isolation:)` (iOS 18) when the deployment target has it, and `next()` below it.
AVAILABILITY_AWARE_IMPLICIT = {"next(isolation:)"}


class StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    def text(self):
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace") if self.length else ""


UNIT_APPLIER = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, StringRef)
POINTER_APPLIER = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_void_p)


def toolchain_lib():
    swift = os.path.realpath(shutil.which("swift") or "")
    lib = os.path.join(os.path.dirname(os.path.dirname(swift)), "lib", "libIndexStore.so")
    if not os.path.exists(lib):
        lib = os.path.join(os.path.dirname(os.path.dirname(swift)), "lib", "libIndexStore.dylib")
    return lib


def load_index_store():
    lib = ctypes.CDLL(toolchain_lib())
    signatures = {
        "indexstore_store_create": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]),
        "indexstore_store_units_apply_f": (ctypes.c_bool, [ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p,
                                                           UNIT_APPLIER]),
        "indexstore_unit_reader_create": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p,
                                                            ctypes.POINTER(ctypes.c_void_p)]),
        "indexstore_unit_reader_dispose": (None, [ctypes.c_void_p]),
        "indexstore_unit_reader_get_main_file": (StringRef, [ctypes.c_void_p]),
        "indexstore_unit_reader_get_module_name": (StringRef, [ctypes.c_void_p]),
        "indexstore_unit_reader_get_modification_time": (None, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64),
                                                                ctypes.POINTER(ctypes.c_int64)]),
        "indexstore_unit_reader_dependencies_apply_f": (ctypes.c_bool, [ctypes.c_void_p, ctypes.c_void_p,
                                                                        POINTER_APPLIER]),
        "indexstore_unit_dependency_get_kind": (ctypes.c_int, [ctypes.c_void_p]),
        "indexstore_unit_dependency_get_name": (StringRef, [ctypes.c_void_p]),
        "indexstore_record_reader_create": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p,
                                                              ctypes.POINTER(ctypes.c_void_p)]),
        "indexstore_record_reader_dispose": (None, [ctypes.c_void_p]),
        "indexstore_record_reader_occurrences_apply_f": (ctypes.c_bool, [ctypes.c_void_p, ctypes.c_void_p,
                                                                         POINTER_APPLIER]),
        "indexstore_occurrence_get_symbol": (ctypes.c_void_p, [ctypes.c_void_p]),
        "indexstore_occurrence_get_roles": (ctypes.c_uint64, [ctypes.c_void_p]),
        "indexstore_occurrence_get_line_col": (None, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint),
                                                      ctypes.POINTER(ctypes.c_uint)]),
        "indexstore_symbol_get_usr": (StringRef, [ctypes.c_void_p]),
        "indexstore_symbol_get_name": (StringRef, [ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def read_uses(store_path, modules):
    """Maps each module ({name: source directory}) to its references: (file, line, column, usr, name)."""
    lib = load_index_store()
    error = ctypes.c_void_p()
    store = lib.indexstore_store_create(store_path.encode(), ctypes.byref(error))
    if not store:
        raise SystemExit(f"cannot open the index store at {store_path}")
    unit_names = []
    lib.indexstore_store_units_apply_f(store, 0, None, UNIT_APPLIER(lambda _, name: unit_names.append(name.text())
                                                                    or True))
    # The newest unit per source file: an older build's units stay in the store beside the current ones.
    newest = {}
    for unit_name in unit_names:
        reader = lib.indexstore_unit_reader_create(store, unit_name.encode(), ctypes.byref(error))
        if not reader:
            continue
        module = lib.indexstore_unit_reader_get_module_name(reader).text()
        main_file = lib.indexstore_unit_reader_get_main_file(reader).text()
        if module in modules and main_file.startswith(modules[module] + os.sep) and os.path.exists(main_file):
            seconds, nanoseconds = ctypes.c_int64(), ctypes.c_int64()
            lib.indexstore_unit_reader_get_modification_time(reader, ctypes.byref(seconds), ctypes.byref(nanoseconds))
            records = []

            def dependency(_, pointer, records=records):
                if lib.indexstore_unit_dependency_get_kind(pointer) == 2:  # a record
                    records.append(lib.indexstore_unit_dependency_get_name(pointer).text())
                return True

            lib.indexstore_unit_reader_dependencies_apply_f(reader, None, POINTER_APPLIER(dependency))
            stamp = (seconds.value, nanoseconds.value)
            if main_file not in newest or newest[main_file][0] < stamp:
                newest[main_file] = (stamp, module, records)
        lib.indexstore_unit_reader_dispose(reader)
    uses = {module: [] for module in modules}
    for main_file, (_, module, records) in newest.items():
        for record in records:
            reader = lib.indexstore_record_reader_create(store, record.encode(), ctypes.byref(error))
            if not reader:
                continue

            def occurrence(_, pointer, module=module, main_file=main_file):
                roles = lib.indexstore_occurrence_get_roles(pointer)
                if roles & (ROLE_DECLARATION | ROLE_DEFINITION):
                    return True
                symbol = lib.indexstore_occurrence_get_symbol(pointer)
                name = lib.indexstore_symbol_get_name(symbol).text()
                if roles & ROLE_IMPLICIT and name in AVAILABILITY_AWARE_IMPLICIT:
                    return True
                line, column = ctypes.c_uint(), ctypes.c_uint()
                lib.indexstore_occurrence_get_line_col(pointer, ctypes.byref(line), ctypes.byref(column))
                uses[module].append((main_file, line.value, column.value,
                                     lib.indexstore_symbol_get_usr(symbol).text(), name))
                return True

            lib.indexstore_record_reader_occurrences_apply_f(reader, None, POINTER_APPLIER(occurrence))
            lib.indexstore_record_reader_dispose(reader)
    return uses, len(newest)


def version(value):
    return (value.get("major", 0), value.get("minor", 0))


def read_availability(modules, bin_path, own=()):
    """Maps USRs to {platform: ('introduced', (major, minor)) or ('unavailable', None)} above the floor."""
    directory = os.path.join(SCRATCH, "symbols")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    # The C modules of the dependencies (NIO's, the SQLite driver's, …): their module maps, so that a Swift module
    # that imports one loads.
    module_maps = []
    for path in sorted(glob.glob(os.path.join(bin_path, "*.build", "module.modulemap"))
                       + glob.glob(os.path.join(ROOT, ".build", "checkouts", "*", "**", "include", "module.modulemap"),
                                   recursive=True)):
        module_maps += ["-Xcc", f"-fmodule-map-file={path}"]

    def extract(module):
        result = subprocess.run(
            ["swift", "symbolgraph-extract", "-module-name", module, "-target", target_triple(),
             # The package's own modules down to private: a use of an `@available` internal declaration counts.
             "-minimum-access-level", "private" if module in own else "public", "-output-dir", directory,
             "-I", os.path.join(bin_path, "Modules")] + module_maps,
            capture_output=True, text=True)
        return module, result

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for module, result in pool.map(extract, modules):
            if result.returncode != 0:
                print(f"  note: no symbol graph for {module} ({result.stderr.strip().splitlines()[-1:] or ['?']})")
    own, parents, counts = {}, {}, {}
    for path in glob.glob(os.path.join(directory, "*.symbols.json")):
        with open(path) as handle:
            graph = json.load(handle)
        module = os.path.basename(path).split("@")[0].split(".")[0]
        for symbol in graph.get("symbols", []):
            usr = symbol["identifier"]["precise"]
            counts[module] = counts.get(module, 0) + 1
            entries = {}
            for item in symbol.get("availability", []) or []:
                domain = item.get("domain")
                if domain not in FLOOR:
                    continue
                if item.get("isUnconditionallyUnavailable") or "obsoleted" in item:
                    entries[domain] = ("unavailable", None)
                elif "introduced" in item:
                    entries[domain] = ("introduced", version(item["introduced"]))
            if entries:
                own.setdefault(usr, {}).update(entries)
        for relation in graph.get("relationships", []):
            if relation.get("kind") in ("memberOf", "optionalRequirementOf", "requirementOf"):
                parents.setdefault(relation["source"], set()).add(relation["target"])
    newer = {}
    for usr in set(own) | set(parents):
        needs = effective(usr, own, parents, set())
        above = {domain: need for domain, need in needs.items()
                 if need[0] == "unavailable" or need[1] > FLOOR[domain]}
        if above:
            newer[usr] = above
    return newer, counts


def effective(usr, own, parents, seen):
    """A symbol's availability with its enclosing types' and extensions' (the newest wins)."""
    if usr in seen:
        return {}
    seen.add(usr)
    result = dict(own.get(usr, {}))
    for parent in parents.get(usr, ()):
        for domain, need in effective(parent, own, parents, seen).items():
            mine = result.get(domain)
            if mine is None or need[0] == "unavailable" or (mine[0] == "introduced" and need[1] > mine[1]):
                result[domain] = need
    return result


def target_triple():
    machine = os.uname().machine
    return f"{'aarch64' if machine in ('arm64', 'aarch64') else machine}-unknown-linux-gnu"


def describe(needs):
    parts = []
    for domain in ["iOS", "macOS", "tvOS", "watchOS", "visionOS"]:
        if domain in needs:
            kind, value = needs[domain]
            parts.append(f"{domain} {value[0]}.{value[1]}" if kind == "introduced" else f"{domain} unavailable")
    return ", ".join(parts)


def read_allowlist():
    entries = []
    if not os.path.exists(ALLOWLIST):
        return entries
    with open(ALLOWLIST) as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            rule, _, reason = text.partition("#")
            fields = rule.split()
            if len(fields) != 2 or not reason.strip():
                raise SystemExit(f"{ALLOWLIST}:{number}: write `<file> <symbol>  # reason`")
            entries.append((fields[0], fields[1]))
    return entries


AVAILABILITY_SPEC = re.compile(r"(iOS|macOS|tvOS|watchOS|visionOS)\s+(\d+)(?:\.(\d+))?")


def guarded_regions(path):
    """Maps line numbers of `path` to the systems an `@available` or `#available` around them guarantees.

    Read from the source, with the indentation swift-format gives it (the test command lints it first): an
    `@available(…)` attribute covers the declaration after it, to the `}` at the attribute's indentation; an
    `if #available(…) {` covers its block; a `guard #available(…) else {…}` covers the rest of its scope. The index
    store does not record these, so a use inside one is judged by the systems it names.
    """
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    regions = {}

    def indentation(text):
        return len(text) - len(text.lstrip(" "))

    def cover(first, last, systems):
        for number in range(first, last + 1):
            mine = regions.setdefault(number, {})
            for domain, value in systems.items():
                if value > mine.get(domain, (0, 0)):
                    mine[domain] = value

    for index, text in enumerate(lines):
        match = re.search(r"(@|#)available\(([^)]*)\)", text)
        if not match or "unavailable" in match.group(2) or "deprecated" in match.group(2):
            continue
        systems = {domain: (int(major), int(minor or 0))
                   for domain, major, minor in AVAILABILITY_SPEC.findall(match.group(2))}
        if not systems:
            continue
        indent = indentation(text)
        if match.group(1) == "@":
            start = index + 1 if text.strip().startswith("@available") and text.rstrip().endswith(")") else index
            # The declaration's head runs to the line that opens its body; without a body, it ends before the next
            # blank line or line back at its indentation.
            end = start
            for number in range(start, len(lines)):
                if lines[number].rstrip().endswith("{"):
                    end = next((close for close in range(number + 1, len(lines))
                                if lines[close].strip().startswith("}") and indentation(lines[close]) == indent),
                               len(lines) - 1)
                    break
                if number > start and (not lines[number].strip() or indentation(lines[number]) <= indent):
                    end = number - 1
                    break
            cover(index + 1, end + 1, systems)
        elif text.strip().startswith("guard"):
            end = next((number for number in range(index + 1, len(lines))
                        if lines[number].strip() and indentation(lines[number]) < indent), len(lines) - 1)
            cover(index + 1, end + 1, systems)
        else:
            end = next((number for number in range(index + 1, len(lines))
                        if lines[number].strip().startswith("}") and indentation(lines[number]) == indent),
                       len(lines) - 1)
            cover(index + 1, end + 1, systems)
    return regions


def covered(needs, guaranteed):
    """Whether the systems `guaranteed` (from `@available` or `#available`) meet every one of `needs`."""
    return all(kind == "introduced" and domain in guaranteed and guaranteed[domain] >= value
               for domain, (kind, value) in needs.items())


def check(modules, bin_path, allowlist, dependencies):
    """Checks `modules` ({name: source directory}) against the availability of the system modules and
    `dependencies` (module names)."""
    started = time.monotonic()
    store = os.path.join(bin_path, "index", "store")
    if not os.path.isdir(store):
        print(f"no index store at {store}: run `swift build --traits Server --build-tests` first")
        return 2
    uses, files = read_uses(store, modules)
    newer, counts = read_availability(SYSTEM_MODULES + sorted(dependencies) + sorted(modules), bin_path, modules)
    references = sum(len(items) for items in uses.values())
    print(f"  {files} source files of {len(modules)} modules, {references} references read from the index")
    print("  symbols read: " + ", ".join(f"{module} {counts[module]}" for module in sorted(counts)))
    print(f"  {len(newer)} of them need more than "
          + ", ".join(f"{domain} {major}.{minor}" for domain, (major, minor) in FLOOR.items()))
    unusable = [module for module in modules if not uses[module]]
    missing = [module for module in REQUIRED_MODULES if not counts.get(module)]
    if unusable or missing:
        print(f"cannot check: no index for {unusable or '-'}, no availability for {missing or '-'}")
        return 2
    findings = []
    seen = set()
    regions = {}
    guarded = 0
    for module in modules:
        for path, line, column, usr, name in uses[module]:
            if usr in newer and (path, line, usr) not in seen:
                seen.add((path, line, usr))
                if path not in regions:
                    regions[path] = guarded_regions(path)
                if covered(newer[usr], regions[path].get(line, {})):
                    guarded += 1
                    continue
                findings.append((os.path.relpath(path, ROOT), line, column, name, describe(newer[usr])))
        for path in glob.glob(os.path.join(modules[module], "**", "*.swift"), recursive=True):
            with open(path, encoding="utf-8") as handle:
                for number, text in enumerate(handle, 1):
                    if re.match(r"\s*(@\w+\s+)*((public|package|internal|private|fileprivate)\s+)?import\s+"
                                r"Synchronization\b", text):
                        findings.append((os.path.relpath(path, ROOT), number, 1, "import Synchronization",
                                         "Mutex and Atomic need iOS 18 / macOS 15: use MendCore's Locked"))
    used = set()
    reported = []
    for finding in sorted(findings):
        key = next((entry for entry in allowlist if entry == (finding[0], finding[3])), None)
        if key:
            used.add(key)
        else:
            reported.append(finding)
    for entry in allowlist:
        if entry not in used:
            print(f"  warning: allowlist entry matches nothing (remove it): {entry[0]} {entry[1]}")
    for path, line, column, name, needs in reported:
        print(f"{path}:{line}:{column}  {name}  ({needs})")
    print(f"  {len(reported)} finding(s), {len(used)} allowlisted, {guarded} use(s) inside an @available or "
          f"#available that covers them, in {time.monotonic() - started:.1f} s")
    return 1 if reported else 0


def self_test():
    """Builds a probe module that uses Mutex and Atomic (iOS 18) and Duration (iOS 16): the check must name Mutex, the
    import and the one Atomic whose `#available` is too low, and nothing else."""
    package = os.path.join(SCRATCH, "selftest")
    shutil.rmtree(package, ignore_errors=True)
    os.makedirs(os.path.join(package, "Sources", "AvailabilityProbe"))
    with open(os.path.join(package, "Package.swift"), "w") as handle:
        handle.write(textwrap.dedent("""\
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "AvailabilityProbe", targets: [.target(name: "AvailabilityProbe")])
            """))
    with open(os.path.join(package, "Sources", "AvailabilityProbe", "Probe.swift"), "w") as handle:
        handle.write(textwrap.dedent("""\
            import Synchronization
            public func probe() -> Duration {
                let counter = Mutex(0)
                counter.withLock { $0 += 1 }
                return ContinuousClock().now.duration(to: ContinuousClock().now)
            }
            @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
            public func guardedByAttribute() -> Int {
                Atomic(1).load(ordering: .relaxed)
            }
            public func guardedByCondition() -> Int {
                guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return 0 }
                return Atomic(2).load(ordering: .relaxed)
            }
            public func guardedTooLow() -> Int {
                if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
                    return Atomic(3).load(ordering: .relaxed)
                }
                return 0
            }
            """))
    scratch = os.path.join(SCRATCH, "selftest-build")
    subprocess.run(["swift", "build", "--package-path", package, "--scratch-path", scratch], check=True,
                   stdout=subprocess.DEVNULL)
    bin_path = subprocess.run(["swift", "build", "--package-path", package, "--scratch-path", scratch,
                               "--show-bin-path"], check=True, capture_output=True, text=True).stdout.strip()
    import io
    import contextlib
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        status = check({"AvailabilityProbe": os.path.join(package, "Sources", "AvailabilityProbe")}, bin_path, [],
                       [])
    text = output.getvalue()
    print(text, end="")
    reported = [line for line in text.splitlines() if re.match(r"\S+\.swift:\d+:\d+", line)]
    atomics = [line for line in reported if "  Atomic  (" in line]
    with open(os.path.join(package, "Sources", "AvailabilityProbe", "Probe.swift")) as handle:
        too_low_line = next(number for number, text in enumerate(handle, 1) if "Atomic(3)" in text)
    ok = (status == 1 and any("  Mutex  (" in line for line in reported)
          and any("import Synchronization" in line for line in reported)
          and not any("Duration" in line or "ContinuousClock" in line for line in reported)
          and len(atomics) == 1 and f":{too_low_line}:" in atomics[0])
    print("self-test: " + ("the check names Mutex, the import and the Atomic under a too-low #available, not Duration "
                           "or the Atomics its @available and guard #available cover" if ok else "FAILED"))
    return 0 if ok else 1


def package_modules():
    """Every target of the package: {module name: source directory}. The trait checks (Sources/TraitChecks) are left
    out: with their trait they hold no code, so the index has nothing of theirs to read."""
    description = json.loads(subprocess.run(["swift", "package", "--package-path", ROOT, "--traits", "Server", "describe", "--type", "json"],
                                            check=True, capture_output=True, text=True).stdout)
    return {target["c99name"]: os.path.join(ROOT, target["path"]) for target in description["targets"]
            if target.get("module_type") in ("SwiftTarget", None)
            and not target["path"].startswith("Sources/TraitChecks/")}


def dependency_modules(bin_path, own):
    """The Swift modules the build holds that are not the package's own: every dependency, direct or not."""
    names = {os.path.basename(path)[:-len(".swiftmodule")]
             for path in glob.glob(os.path.join(bin_path, "Modules", "*.swiftmodule"))}
    return {name for name in names if name not in own and not name.startswith("MendPackage")}


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    bin_path = subprocess.run(["swift", "build", "--package-path", ROOT, "--traits", "Server", "--show-bin-path"], check=True,
                              capture_output=True, text=True).stdout.strip()
    modules = package_modules()
    return check(modules, bin_path, read_allowlist(), dependency_modules(bin_path, modules))


if __name__ == "__main__":
    sys.exit(main())
