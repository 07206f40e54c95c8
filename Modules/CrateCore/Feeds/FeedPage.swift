public import CrateDomain
import CrateFeeds
public import Foundation

/// One album on a feed as front ends show it.
public struct FeedEntry: Sendable, Codable, Hashable {
    /// What `crate like`, `crate dislike` and the API take: a library album's number, or `applemusic:ID`.
    public var id: String
    public var title: String
    public var artist: String
    public var year: Int?
    public var genre: String?
    /// Artwork at the requested size: the daemon's `/api/v1/artwork/HASH?size=N` for library albums, the
    /// catalog's image URL for catalog albums; nil when there is none.
    public var artworkURL: String?
    /// Where the album comes from: `local` or `catalog`.
    public var source: String
    /// The signal that chose it (`listeningHistory`, `wildCard`, …) and its name for people.
    public var signal: String
    public var signalTitle: String
    public var opinion: Opinion?

    init(_ entry: WallEntry, artworkSize: Int) {
        let album = entry.album
        id = FeedAlbumRef.text(album)
        title = album.title
        artist = album.artist
        year = album.year ?? album.date.flatMap { Int($0.prefix(4)) }
        genre = album.genre ?? album.genres.first
        artworkURL = FeedArtwork.url(album, size: artworkSize)
        source = entry.source
        signal = entry.signal.rawValue
        signalTitle = entry.signal.title
        opinion = album.opinion
    }
}

/// A feed as far as it has been scrolled: the wall or one genre feed.
public struct FeedPage: Sendable, Codable {
    public var dial: String
    /// The genre and subcategories of a genre feed; nil for the wall.
    public var genre: String?
    public var subcategories: [String]
    public var entries: [FeedEntry]
    /// How many albums each signal and source contributed so far.
    public var contributions: [Contribution]
    /// Signals that failed on the newest page, with why.
    public var failures: [Failure]
    /// Why the newest page is short, when it is.
    public var explanation: String?
    /// How many pages the feed has (1, then one more per `more`).
    public var pages: Int
    /// How many of `entries` the newest page added (they are the last ones; an answer to "more" holds only them).
    public var newest: Int
    public var generatedAt: Date

    public struct Contribution: Sendable, Codable, Hashable {
        public var signal: String
        public var source: String
        public var count: Int
    }

    public struct Failure: Sendable, Codable, Hashable {
        public var signal: String
        public var source: String
        public var message: String
    }
}

/// How an album is named on the command line and in the API.
public enum FeedAlbumRef {
    /// A library album's number, or `scheme:externalID` for catalog albums.
    public static func text(_ album: Album) -> String {
        if !album.isLibraryAlbum, let external = album.externalID { return "\(album.source):\(external)" }
        return String(album.id)
    }

    /// The catalog id in `applemusic:ID` (or `catalog:ID`), nil for anything else.
    public static func catalogID(_ text: String) -> String? {
        for prefix in ["applemusic:", "catalog:"] where text.hasPrefix(prefix) {
            let id = String(text.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            return id.isEmpty ? nil : id
        }
        return nil
    }
}

/// Artwork addresses at a requested size.
enum FeedArtwork {
    static func url(_ album: Album, size: Int) -> String? {
        if let hash = album.artworkHash, album.isLibraryAlbum { return "/api/v1/artwork/\(hash)?size=\(size)" }
        guard let url = album.artworkURL else { return nil }
        return resized(url, size: size)
    }

    /// Apple image URLs end in `…/{w}x{h}bb.jpg`, resolved when mapped: the last `WxH` becomes the size asked for.
    static func resized(_ url: String, size: Int) -> String {
        guard let range = url.range(of: #"\d+x\d+"#, options: [.regularExpression, .backwards]) else { return url }
        return url.replacingCharacters(in: range, with: "\(size)x\(size)")
    }
}
