import Foundation

/// The process's limit on open files (`RLIMIT_NOFILE`): every connection holds one descriptor.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard limit (or to `wanted`, when lower) and returns the
    /// soft limit now in force.
    @discardableResult
    public static func raise(toward wanted: Int = .max) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let target = min(limit.rlim_max, rlim_t(clamping: wanted))
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The soft and hard limits.
    public static var current: (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        return (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_max))
    }
}
