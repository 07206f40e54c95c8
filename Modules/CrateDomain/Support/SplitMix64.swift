import Foundation

/// A small seeded random generator (SplitMix64). Feeds take their randomness only from one of these so that a
/// seed reproduces a wall exactly (tests seed it; the app seeds it from the clock or the system generator);
/// tests and benchmarks use it for any seeded shuffle.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable, Codable {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for one named purpose, independent of the order in which purposes ask. Why not `Hasher`:
    /// it is seeded per process, so it would make seeded runs differ between launches.
    public static func derived(from seed: UInt64, label: String) -> SplitMix64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 // FNV-1a
        for byte in label.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        var mixer = SplitMix64(seed: seed ^ hash)
        return SplitMix64(seed: mixer.next())
    }
}
