/// The random source for message and session ids on the storage thread: xoshiro256**, seeded
/// once from the system's generator.
///
/// Ids need uniqueness, not secrecy; the system generator costs a system call per number on
/// Linux, which would be most of the cost of an event.
struct IdentifierRandomness: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// Seeds from `seedSource` (the system generator by default).
    init<Source: RandomNumberGenerator>(seedSource: inout Source) {
        repeat {
            state = (seedSource.next(), seedSource.next(), seedSource.next(), seedSource.next())
        } while state == (0, 0, 0, 0)
    }

    /// Seeds from the system generator.
    init() {
        var system = SystemRandomNumberGenerator()
        self.init(seedSource: &system)
    }

    mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
