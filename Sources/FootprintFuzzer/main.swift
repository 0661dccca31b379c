// The libFuzzer target `make fuzz` builds with `-sanitize=fuzzer`: hands each input to
// ``FuzzEntry``, as the corpus replay tests do. The target exists only when the package is read
// with `FOOTPRINT_FUZZ=1` (it links against libFuzzer, which an ordinary build does not have).
//
// `FOOTPRINT_FUZZ_TARGET` picks what the inputs are: `ingest` (default; request bodies),
// `reports` (report query strings), `snapshots` (screen snapshot uploads) or `targets` (request
// targets: path and query as in the request line). Every other argument
// is libFuzzer's.

import CLibFuzzer
import FootprintFuzzing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the inputs are, read once.
enum FuzzTarget {
    static let name = getenv("FOOTPRINT_FUZZ_TARGET").map { String(cString: $0) } ?? "ingest"
}

var argumentCount = CommandLine.argc
var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    LLVMFuzzerRunDriver(&argumentCount, &arguments) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        switch FuzzTarget.name {
        case "reports": _ = FuzzEntry.reportParameters(bytes)
        case "snapshots": _ = FuzzEntry.snapshot(bytes)
        case "targets": _ = FuzzEntry.requestTarget(bytes)
        default: _ = FuzzEntry.ingest(bytes)
        }
        return 0
    })
