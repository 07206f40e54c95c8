public import CrateDomain
public import CrateStorage
import Foundation

/// Lyrics stored from the file's own tags at import: the first and preferred provider.
public struct EmbeddedLyricsProvider: LyricsProvider {
    public let name = "embedded"
    let store: LibraryStore

    public init(store: LibraryStore) { self.store = store }

    public func lyrics(for track: Track) async throws -> Lyrics? {
        try store.lyrics(trackID: track.id).flatMap { $0.provider == name ? $0 : nil }
    }
}

/// Asks the providers in order; the first answer wins. Lyrics from a later provider are stored (and so
/// indexed for search) — the embedded ones already are.
public struct LyricsService: Sendable {
    public let providers: [any LyricsProvider]
    let store: LibraryStore

    public init(store: LibraryStore, providers: [any LyricsProvider]? = nil) {
        self.store = store
        self.providers = providers ?? [EmbeddedLyricsProvider(store: store)]
    }

    public func lyrics(for track: Track) async throws -> Lyrics? {
        for provider in providers {
            guard let found = try await provider.lyrics(for: track) else { continue }
            if !(provider is EmbeddedLyricsProvider) { try store.saveLyrics(found) }
            return found
        }
        return nil
    }
}
