#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where drivers read the time. State machines never read a clock: they take the time as an
/// argument, and their drivers (the SDK tracker, the server) read it from a `Clock`, so tests
/// and the demo's simulated days can inject one.
public protocol Clock: Sendable {
    /// The current wall-clock time.
    func now() -> Timestamp
}

/// The system's wall clock.
public struct SystemClock: Clock {
    /// Creates the system clock.
    public init() {}

    public func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
