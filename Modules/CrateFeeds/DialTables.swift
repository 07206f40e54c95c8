import Foundation

/// The weight tables behind the Crate Dial. The documents give the signals and the ends of the dial but no
/// numbers; these are chosen so that each table sums to 1, the personal share falls and the wild share rises
/// strictly from My Crate to Mystery Crate, and charts and new releases stay as a steady middle ground that
/// needs no listening history (ADR-115 graceful degradation leans on them).
enum DialTables {
    /// Wall: listening history, recommendations, popular charts, new releases, wild card.
    static let wall: [CrateDial: [SignalID: Double]] = [
        .my: table(SignalID.wall, [0.40, 0.30, 0.15, 0.10, 0.05]),
        .mostlyMine: table(SignalID.wall, [0.30, 0.25, 0.20, 0.15, 0.10]),
        .mixed: table(SignalID.wall, [0.20, 0.20, 0.25, 0.15, 0.20]),
        .mostlyMystery: table(SignalID.wall, [0.10, 0.15, 0.25, 0.15, 0.35]),
        .mystery: table(SignalID.wall, [0.05, 0.10, 0.20, 0.15, 0.50]),
    ]

    /// Genre feeds: personal history, recommendations, trending, new releases, subcategory rotation, seed
    /// expansion. Seed expansion (more like your favorites) stays sizeable throughout: it is what makes a genre
    /// feed differ between users even at the random end.
    static let genre: [CrateDial: [SignalID: Double]] = [
        .my: table(SignalID.genre, [0.30, 0.25, 0.10, 0.10, 0.05, 0.20]),
        .mostlyMine: table(SignalID.genre, [0.25, 0.20, 0.15, 0.10, 0.10, 0.20]),
        .mixed: table(SignalID.genre, [0.15, 0.15, 0.20, 0.15, 0.20, 0.15]),
        .mostlyMystery: table(SignalID.genre, [0.10, 0.10, 0.20, 0.15, 0.30, 0.15]),
        .mystery: table(SignalID.genre, [0.05, 0.05, 0.20, 0.15, 0.45, 0.10]),
    ]

    private static func table(_ ids: [SignalID], _ weights: [Double]) -> [SignalID: Double] {
        Dictionary(uniqueKeysWithValues: zip(ids, weights))
    }
}
