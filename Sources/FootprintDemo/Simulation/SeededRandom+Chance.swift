import FootprintWire

extension SeededRandom {
    /// `true` with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
