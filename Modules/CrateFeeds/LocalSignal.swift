public import CrateDomain
import Foundation

/// A signal drawn from the library alone (works offline, with no account): see `LocalPicks` for how each
/// signal chooses. The facts come from a snapshot shared by all local signals of one compose.
public struct LocalSignal: WallSignal {
    public let id: SignalID
    public var source: String { SignalSource.local }
    let snapshot: LocalSnapshot
    let library: any LocalAlbumLibrary

    public init(_ id: SignalID, snapshot: LocalSnapshot, library: any LocalAlbumLibrary) {
        self.id = id
        self.snapshot = snapshot
        self.library = library
    }

    public func candidates(limit: Int, context: FeedContext) async throws -> [Album] {
        var rng = context.rng(for: id, source: source)
        let ids = LocalPicks.pick(id, snapshot, limit: limit, context: context, rng: &rng)
        return try await library.albums(ids: ids)
    }
}
