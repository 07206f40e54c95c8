public import Foundation

/// Catalog previews: a catalog album (Apple Music) cannot be played in full outside its own players, but each song's
/// 30-second preview is plain AAC over HTTPS. Playing a catalog album queues those previews in album order.
///
/// The previews are stream tracks (their `ref` is the preview URL, source `https`, so the URLStream source plays them),
/// grouped in one hidden album per catalog album, identity `preview:<catalog album>` (`preview:applemusic:1440857781`),
/// with the catalog's title, artists, numbers and durations. Album, artist and track lists, counts, search, feeds and
/// Home's recent albums leave those albums out, as they leave out the streams album (`Station`). Playing the album
/// again reuses its tracks (one track per preview URL), refreshing what the catalog says now.
public enum CatalogPreview {
    /// The start of every preview album's identity.
    public static let identityPrefix = "preview:"

    /// The hidden album's identity for a catalog album named `scheme:id` (`applemusic:1440857781`).
    public static func albumIdentity(catalogAlbum: String) -> String { identityPrefix + catalogAlbum }

    /// `scheme:id` of the catalog album a preview album stands for; nil for any other identity.
    public static func catalogAlbum(identity: String) -> String? {
        guard identity.hasPrefix(identityPrefix) else { return nil }
        let rest = String(identity.dropFirst(identityPrefix.count))
        return rest.isEmpty ? nil : rest
    }

    /// `scheme:id` of a catalog album (`applemusic:1440857781`), as feeds, likes and the player name it.
    public static func reference(_ album: Album) -> String { "\(album.source):\(album.externalID ?? String(album.id))" }

    /// The preview of a catalog track when there is one that can be streamed (an http or https URL).
    public static func previewURL(_ track: Track) -> URL? {
        guard let text = track.previewURL, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host?.isEmpty == false else { return nil }
        return url
    }

    /// Why a catalog song was left out of the previews queued.
    public static let noPreviewReason = "no preview"
}

/// A catalog song that was not queued, and why (it has no preview).
public struct PreviewSkip: Sendable, Hashable, Codable {
    public var title: String
    public var discNumber: Int?
    public var trackNumber: Int?
    public var reason: String

    public init(title: String, discNumber: Int?, trackNumber: Int?, reason: String) {
        self.title = title
        self.discNumber = discNumber
        self.trackNumber = trackNumber
        self.reason = reason
    }
}

/// What playing a catalog album's previews did: the album, how many previews were queued, the songs left out, and the
/// player's status after starting (`preview: true`).
public struct PreviewPlay: Sendable, Hashable, Codable {
    /// `scheme:id` (`applemusic:1440857781`).
    public var album: String
    public var title: String
    public var artist: String
    /// Previews queued (in album order, from the song asked for).
    public var queued: Int
    public var skipped: [PreviewSkip]
    public var status: PlayerStatus

    public init(album: String, title: String, artist: String, queued: Int, skipped: [PreviewSkip], status: PlayerStatus) {
        self.album = album
        self.title = title
        self.artist = artist
        self.queued = queued
        self.skipped = skipped
        self.status = status
    }
}
