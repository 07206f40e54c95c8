import Foundation

/// The Crate Dial (ADR-115): how personal or how random the feeds are, in five steps. The raw values are what
/// gets persisted; Mixed Crate is the default.
public enum CrateDial: String, Sendable, Hashable, Codable, CaseIterable {
    case my = "my"
    case mostlyMine = "mostly-mine"
    case mixed = "mixed"
    case mostlyMystery = "mostly-mystery"
    case mystery = "mystery"

    public static let `default`: CrateDial = .mixed

    /// A name for people.
    public var title: String {
        switch self {
        case .my: "My Crate"
        case .mostlyMine: "Mostly My Crate"
        case .mixed: "Mixed Crate"
        case .mostlyMystery: "Mostly Mystery Crate"
        case .mystery: "Mystery Crate"
        }
    }

    /// 0 (My Crate) … 4 (Mystery Crate), for a discrete slider.
    public var index: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Lenient parsing for settings and the command line: a raw value, a title, or a slider index.
    public init?(parsing text: String) {
        let key = text.lowercased().trimmingCharacters(in: .whitespaces)
        if let dial = CrateDial(rawValue: key) {
            self = dial
        } else if let dial = Self.allCases.first(where: { $0.title.lowercased() == key }) {
            self = dial
        } else if let number = Int(key), Self.allCases.indices.contains(number) {
            self = Self.allCases[number]
        } else {
            return nil
        }
    }

    /// The wall's weights (per `SignalID.wall`); they sum to 1.
    public var wallWeights: [SignalID: Double] {
        DialTables.wall[self] ?? [:]
    }

    /// A genre feed's weights (per `SignalID.genre`); they sum to 1.
    public var genreWeights: [SignalID: Double] {
        DialTables.genre[self] ?? [:]
    }

    /// The sum of the personal signals' weights in a table (`SignalID.personal`).
    public static func personalWeight(_ weights: [SignalID: Double]) -> Double {
        weights.filter { $0.key.isPersonal }.values.reduce(0, +)
    }

    /// The sum of the wild signals' weights in a table (`SignalID.wild`).
    public static func wildWeight(_ weights: [SignalID: Double]) -> Double {
        weights.filter { $0.key.isWild }.values.reduce(0, +)
    }
}
