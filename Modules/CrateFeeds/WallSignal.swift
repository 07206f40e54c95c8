public import CrateDomain
import Foundation

/// One source of candidate albums for a feed (ADR-115, ADR-118). Implementations exist per source (the local
/// library, the Apple catalog); several may share an `id`, and the composer blends them under that id's weight.
public protocol WallSignal: Sendable {
    /// Which signal this is; its weight comes from the dial table for this id.
    var id: SignalID { get }
    /// Where the albums come from: "local" or "catalog".
    var source: String { get }
    /// Up to `limit` candidates, best first. Should skip `context.excluded` (the composer filters too) and take
    /// randomness only from `context`. May throw: the composer redistributes a failed signal's share.
    func candidates(limit: Int, context: FeedContext) async throws -> [Album]
}

/// The two `source` values the issue names.
public enum SignalSource {
    public static let local = "local"
    public static let catalog = "catalog"
}
