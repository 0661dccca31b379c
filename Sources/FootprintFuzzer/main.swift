// The libFuzzer target `make fuzz` builds with `-sanitize=fuzzer`: hands each input to
// ``FuzzEntry``, as the corpus replay tests do. The target exists only when the package is read
// with `FOOTPRINT_FUZZ=1` (it links against libFuzzer, which an ordinary build does not have).
//
// `FOOTPRINT_FUZZ_TARGET` picks what the inputs are: `ingest` (default; request bodies) or
// `reports` (report query strings). Every other argument is libFuzzer's.

import CLibFuzzer
import FootprintServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the inputs are, read once.
enum FuzzTarget {
    static let isReports = getenv("FOOTPRINT_FUZZ_TARGET").map { String(cString: $0) } == "reports"
}

var argumentCount = CommandLine.argc
var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    LLVMFuzzerRunDriver(&argumentCount, &arguments) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        if FuzzTarget.isReports {
            _ = FuzzEntry.reportParameters(bytes)
        } else {
            _ = FuzzEntry.ingest(bytes)
        }
        return 0
    })
