/// Decides whether a device captures under a sample rate. The decision depends only on the
/// device id and the rate, so a device stays in (or out) across launches, and raising the rate
/// only adds devices.
public enum DeviceSampling {
    /// Whether the device `deviceID` (the anonymous id) is sampled in at `rate` (0...1).
    public static func includes(deviceID: String, rate: Double) -> Bool {
        if rate >= 1 { return true }
        if rate <= 0 { return false }
        return position(of: deviceID) < rate
    }

    /// The device's fixed place in 0..<1: FNV-1a 64 of its id, mixed, scaled.
    public static func position(of deviceID: String) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in deviceID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // Finalizer (splitmix64) so that ids differing in the last byte spread over the range.
        hash ^= hash >> 30
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash = hash &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Double(hash >> 11) / Double(UInt64(1) << 53)
    }
}
