import CrateDomain
import Foundation

/// Catalog resources into the domain types local files use, so albums from both look and sort alike.
enum CatalogMapping {
    static let source = "applemusic"
    static let defaultArtworkSize = 600
    /// Placeholder stream facts: catalog audio is AAC, but the exact format is only known to Apple's players.
    static let streamInfo = StreamInfo(codec: "aac", sampleRate: 44_100, channels: 2)

    /// An album (`albums` or `library-albums`) with its attributes; nil for a bare identifier.
    /// `tracks` are the album's songs when known: they give the duration and the number of discs.
    static func album(_ r: Resource, artworkSize: Int = defaultArtworkSize, tracks: [Track]? = nil) -> Album? {
        guard isAlbum(r), let a = r.attributes else { return nil }
        let genres = genreNames(a.genreNames)
        let tracks = tracks ?? Self.tracks(ofAlbum: r, songs: songs(of: r), artworkSize: artworkSize)
        let discs = tracks.compactMap(\.discNumber).max() ?? 1
        return Album(
            id: Int64(r.id) ?? 0,
            identity: "\(source):\(r.id)",
            title: a.name ?? "",
            artist: a.artistName ?? "",
            date: a.releaseDate,
            year: year(a.releaseDate),
            genre: genres.first,
            isCompilation: a.isCompilation ?? false,
            trackCount: a.trackCount ?? tracks.count,
            discCount: max(1, discs),
            duration: tracks.reduce(0) { $0 + $1.duration },
            // Catalog albums were never "added"; library albums say when they were.
            addedAt: a.dateAdded.flatMap(date) ?? Date(timeIntervalSince1970: 0),
            source: source,
            externalID: r.id,
            artworkURL: a.artwork.map { artworkURL($0, size: artworkSize) },
            genres: genres)
    }

    static func isAlbum(_ r: Resource) -> Bool { r.type == "albums" || r.type == "library-albums" }

    /// The songs of an album's `tracks` relationship (music videos left out: they have no audio preview).
    static func songs(of album: Resource) -> [Resource] {
        (album.relationships["tracks"]?.data ?? []).filter { $0.type == "songs" || $0.type == "library-songs" }
    }

    /// A song as a track. With its album (`album`), it takes the album's id and artist and the per-disc
    /// totals of `siblings`; alone (search hits), the album id comes from the song's `url`.
    static func track(_ r: Resource, album: Resource? = nil, siblings: [Resource] = [], artworkSize: Int = defaultArtworkSize) -> Track? {
        guard let a = r.attributes else { return nil }
        let albumID = album.flatMap { Int64($0.id) } ?? a.url.flatMap(albumID(fromSongURL:)) ?? 0
        let disc = a.discNumber
        let onDisc = siblings.filter { $0.attributes?.discNumber == disc }.count
        let discTotal = siblings.compactMap { $0.attributes?.discNumber }.max()
        return Track(
            id: Int64(r.id) ?? 0,
            ref: TrackRef(source: source, id: r.id),
            albumID: albumID,
            title: a.name ?? "",
            artist: a.artistName ?? "",
            albumArtist: album?.attributes?.artistName ?? a.artistName ?? "",
            album: a.albumName ?? album?.attributes?.name ?? "",
            genre: genreNames(a.genreNames).first,
            date: a.releaseDate,
            trackNumber: a.trackNumber,
            trackTotal: siblings.isEmpty ? nil : onDisc,
            discNumber: disc,
            discTotal: discTotal,
            duration: Double(a.durationInMillis ?? 0) / 1000,
            info: streamInfo,
            path: nil,
            // Full playback needs Apple's DRM; the 30-second preview is plain AAC over HTTPS.
            playableInFull: false,
            previewURL: a.previews.first?.url)
    }

    /// All tracks of an album resource, with per-disc totals.
    static func tracks(ofAlbum album: Resource, songs: [Resource], artworkSize: Int = defaultArtworkSize) -> [Track] {
        songs.compactMap { track($0, album: album, siblings: songs, artworkSize: artworkSize) }
    }

    static func hit(_ r: Resource, artworkSize: Int = defaultArtworkSize) -> CatalogHit? {
        guard let a = r.attributes else { return nil }
        let subtitle: String? = switch r.type {
        case "albums": a.artistName
        case "songs": [a.artistName, a.albumName].compactMap { $0 }.joined(separator: " — ")
        default: genreNames(a.genreNames).first
        }
        return CatalogHit(source: source, id: r.id, title: a.name ?? "", subtitle: subtitle?.isEmpty == true ? nil : subtitle,
                          artworkURL: a.artwork.map { artworkURL($0, size: artworkSize) })
    }

    static func genre(_ r: Resource) -> CatalogGenre? {
        guard let name = r.attributes?.name else { return nil }
        return CatalogGenre(id: r.id, name: name, parentID: r.attributes?.parentId)
    }

    /// The template with `{w}` and `{h}` filled in, no larger than the largest size Apple has.
    /// Only those tokens change (the suffix varies: `bb.jpg`, `cc.jpg`, …); the rare `{c}`/`{f}`
    /// (crop, format) get Apple's usual values so the URL still works.
    static func artworkURL(_ artwork: Artwork, size: Int) -> String {
        let requested = max(1, size)
        let w = min(requested, artwork.width.flatMap { $0 > 0 ? $0 : nil } ?? requested)
        let h = min(requested, artwork.height.flatMap { $0 > 0 ? $0 : nil } ?? requested)
        return artwork.url
            .replacingOccurrences(of: "{w}", with: String(w))
            .replacingOccurrences(of: "{h}", with: String(h))
            .replacingOccurrences(of: "{c}", with: "bb")
            .replacingOccurrences(of: "{f}", with: "jpg")
    }

    /// Genre names without the catch-all "Music" every catalog item ends with.
    static func genreNames(_ names: [String]) -> [String] {
        names.filter { $0 != "Music" && !$0.isEmpty }
    }

    /// The year of `YYYY-MM-DD` or `YYYY`.
    static func year(_ releaseDate: String?) -> Int? {
        guard let releaseDate, releaseDate.count >= 4 else { return nil }
        return Int(releaseDate.prefix(4))
    }

    /// `…/album/<slug>/<albumId>?i=<songId>` → the album id.
    static func albumID(fromSongURL url: String) -> Int64? {
        guard let components = URLComponents(string: url) else { return nil }
        return components.path.split(separator: "/").last.flatMap { Int64($0) }
    }

    /// `dateAdded`: an ISO 8601 timestamp in practice, a plain date per the schema.
    static func date(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: .iso8601) { return d }
        if let d = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return d }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }
}
