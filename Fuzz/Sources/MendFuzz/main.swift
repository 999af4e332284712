// mend-fuzz: Mend's fuzz targets in one libFuzzer binary. MEND_FUZZ_TARGET names the target; the arguments are
// libFuzzer's (corpus folders, -max_len=…, -runs=…). scripts/fuzz builds and runs every target.
//
// SwiftPM gives an executable its own `main` (this file); libFuzzer's driver is started from it with
// `LLVMFuzzerRunDriver`, so that no `main` of libFuzzer's is needed.

import CLibFuzzer
import MendFuzzTargets

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The harness MEND_FUZZ_TARGET names, looked up once.
let selected: FuzzTarget = {
    let name = getenv("MEND_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: " ")
        let message = "mend-fuzz: set MEND_FUZZ_TARGET to one of: \(names)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    return target
}()

/// libFuzzer's entry point: runs the selected harness on one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    selected.run(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
    return 0
}

_ = selected
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data, size) })
