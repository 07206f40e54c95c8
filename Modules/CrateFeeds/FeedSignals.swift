import CrateDomain
import Foundation

/// Which signal implementations a feed blends: every signal of the feed from every source that is there.
/// Both sources share a signal's weight (the composer blends them under one id), so a local-only, a
/// catalog-only and a blended install all get a full wall.
public enum FeedSignals {
    public static func make(_ ids: [SignalID], local: (snapshot: LocalSnapshot, library: any LocalAlbumLibrary)?,
                            catalog: (any FeedCatalog)?, profile: FeedProfile) -> [any WallSignal] {
        var signals: [any WallSignal] = []
        for id in ids {
            if let local { signals.append(LocalSignal(id, snapshot: local.snapshot, library: local.library)) }
            if let catalog { signals.append(CatalogSignal(id, catalog: catalog, profile: profile)) }
        }
        return signals
    }
}
