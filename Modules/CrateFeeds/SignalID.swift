import Foundation

/// Every signal a feed can blend. The wall uses the first five, genre feeds the last six (ADR-115, ADR-118).
/// The declaration order is the fixed tie-break order of `distributeByWeight` and the interleave.
public enum SignalID: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    // Crate Wall (ADR-115)
    case listeningHistory, recommendations, popularCharts, newReleases, wildCard
    // Genre feeds (ADR-118)
    case personalHistory, genreRecommendations, trending, genreNewReleases, subcategoryRotation, seedExpansion

    /// The Crate Wall's signals, in fixed order.
    public static let wall: [SignalID] = [.listeningHistory, .recommendations, .popularCharts, .newReleases, .wildCard]
    /// A genre feed's signals, in fixed order.
    public static let genre: [SignalID] = [.personalHistory, .genreRecommendations, .trending, .genreNewReleases,
                                           .subcategoryRotation, .seedExpansion]

    /// The one definition of "personal": signals drawn from what the user played and what their service
    /// recommends for them. These are the ones that fail for a new user (ADR-115 graceful degradation) and the
    /// ones the dial turns down towards Mystery Crate.
    public static let personal: Set<SignalID> = [.listeningHistory, .recommendations,
                                                 .personalHistory, .genreRecommendations]
    /// The random-heavy signals the dial turns up towards Mystery Crate.
    public static let wild: Set<SignalID> = [.wildCard, .subcategoryRotation]

    public var isPersonal: Bool { Self.personal.contains(self) }
    public var isWild: Bool { Self.wild.contains(self) }

    /// The position in the fixed order (declaration order).
    public var order: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }

    public static func < (lhs: SignalID, rhs: SignalID) -> Bool { lhs.order < rhs.order }

    /// A name for people (logs, diagnostics).
    public var title: String {
        switch self {
        case .listeningHistory: "Listening History"
        case .recommendations: "Recommendations"
        case .popularCharts: "Popular Charts"
        case .newReleases: "New Releases"
        case .wildCard: "Wild Card"
        case .personalHistory: "Personal History"
        case .genreRecommendations: "Recommendations"
        case .trending: "Trending"
        case .genreNewReleases: "New Releases"
        case .subcategoryRotation: "Subcategory Rotation"
        case .seedExpansion: "Seed Expansion"
        }
    }
}
