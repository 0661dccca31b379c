// The libFuzzer target `make fuzz` builds with `-sanitize=fuzzer`, which links libFuzzer's own
// `main`; this file only supplies the function it calls with each input. The target exists only
// when the package is read with `FOOTPRINT_FUZZ=1`.
//
// `FOOTPRINT_FUZZ_TARGET` picks what the inputs are: `ingest` (default; request bodies) or
// `reports` (report query strings). Both run ``FuzzEntry``, as the corpus replay tests do.

import FootprintServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the inputs are report query strings rather than ingest bodies.
let fuzzesReports = getenv("FOOTPRINT_FUZZ_TARGET").map { String(cString: $0) } == "reports"

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if fuzzesReports {
        _ = FuzzEntry.reportParameters(bytes)
    } else {
        _ = FuzzEntry.ingest(bytes)
    }
    return 0
}
