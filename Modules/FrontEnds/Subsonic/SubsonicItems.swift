import CrateCore
import CrateDomain
import Foundation

/// Crate's songs, albums and artists as Subsonic objects (`Child`, `AlbumID3`, `ArtistID3`), with the signed-in
/// person's stars, ratings and play counts on them. One per request: each of those is read once, when first needed.
final class SubsonicItems {
    let services: SubsonicServices
    let account: Account
    private var stars: [String: Date]?
    private var ratingTable: [String: Int]?
    private var plays: [Int64: Int]?
    private var albumPlays: [Int64: Int]?
    private var albumArtistIDs: [String: Int64?] = [:]
    private var artistsWithArtwork: Set<Int64>?

    init(services: SubsonicServices, account: Account) {
        self.services = services
        self.account = account
    }

    // MARK: The person's annotations

    func starDates() throws -> [String: Date] {
        if let stars { return stars }
        let read = try services.runtime.listening.starDates(for: account)
        stars = read
        return read
    }

    func ratings() throws -> [String: Int] {
        if let ratingTable { return ratingTable }
        let read = try services.runtime.listening.ratings(for: account)
        ratingTable = read
        return read
    }

    func playCounts() throws -> [Int64: Int] {
        if let plays { return plays }
        let read = try services.runtime.listening.playCounts(for: account)
        plays = read
        return read
    }

    /// An album's plays by this person: the library's own count for the owner (whose plays are Crate's), else the
    /// sum of their plays of its tracks.
    func playCount(of album: Album) throws -> Int { try playCount(ofAlbum: album.id, libraryCount: album.playCount) }

    func playCount(ofAlbum id: Int64, libraryCount: Int) throws -> Int {
        if account.isOwner { return libraryCount }
        if albumPlays == nil {
            let counts = try playCounts()
            var sums: [Int64: Int] = [:]
            for track in try services.collection.tracks(ids: Array(counts.keys)) {
                sums[track.albumID, default: 0] += counts[track.id] ?? 0
            }
            albumPlays = sums
        }
        return albumPlays?[id] ?? 0
    }

    func rating(_ kind: FavoriteKind, _ id: Int64) throws -> Int? {
        try ratings()[Starred.key(kind, id)].flatMap { $0 > 0 ? $0 : nil }
    }

    func starred(_ kind: FavoriteKind, _ id: Int64) throws -> Date? { try starDates()[Starred.key(kind, id)] }

    /// The id of the album artist named `name` (albums carry the name; Subsonic wants the id too).
    func artistID(named name: String) throws -> Int64? {
        if let known = albumArtistIDs[name] { return known }
        let id = try services.collection.albumArtistID(named: name)
        albumArtistIDs[name] = id
        return id
    }

    /// Whether an artist has a picture to show: one of their albums has artwork.
    func hasArtwork(artist id: Int64) throws -> Bool {
        if artistsWithArtwork == nil { artistsWithArtwork = try services.collection.albumArtistsWithArtwork() }
        return artistsWithArtwork?.contains(id) ?? false
    }

    // MARK: Objects

    /// A song (`Child`): its file's facts, its album and artist ids, and this person's star, rating and plays.
    func song(_ track: Track) throws -> SubsonicObject {
        let suffix = Self.suffix(of: track)
        let size = track.path.flatMap(Self.fileSize)
        let genres = track.genre.map(GenreList.values(of:)) ?? []
        let trackArtistID = try artistID(named: track.artist)
        let albumArtistID = try artistID(named: track.albumArtist)
        return try SubsonicObject { song in
            song["id"] = SubsonicID.track(track.id)
            song["parent"] = SubsonicID.album(track.albumID)
            song["isDir"] = false
            song["title"] = track.title
            song["album"] = track.album
            song["artist"] = track.artist
            song["track"] = track.trackNumber
            song["discNumber"] = track.discNumber
            song["year"] = TrackTags.year(of: track.date)
            song["genre"] = genres.first
            song["coverArt"] = track.artworkHash
            song["size"] = size
            song["contentType"] = Self.contentType(suffix: suffix)
            song["suffix"] = suffix
            song["duration"] = Int(track.duration.rounded())
            song["bitRate"] = size.flatMap { track.duration > 0 ? Int((Double($0) * 8 / track.duration / 1000).rounded()) : nil }
            song["bitDepth"] = track.info.bitsPerSample
            song["samplingRate"] = track.info.sampleRate > 0 ? track.info.sampleRate : nil
            song["channelCount"] = track.info.channels > 0 ? track.info.channels : nil
            song["path"] = Self.displayPath(track, suffix: suffix)
            song["isVideo"] = false
            song["playCount"] = try playCounts()[track.id] ?? 0
            song["played"] = account.isOwner ? track.lastPlayedAt : nil
            song["created"] = track.addedAt
            song["starred"] = try starred(.track, track.id)
            song["userRating"] = try rating(.track, track.id)
            song["albumId"] = SubsonicID.album(track.albumID)
            song["artistId"] = trackArtistID.map(SubsonicID.artist)
            song["type"] = "music"
            song["mediaType"] = "song"
            song["sortName"] = track.title
            song["genres"] = genres.map { name in SubsonicObject { $0["name"] = name } }
            song["displayArtist"] = track.artist
            song["displayAlbumArtist"] = track.albumArtist
            song["artists"] = trackArtistID.map { id in [Self.reference(id, track.artist)] }
            song["albumArtists"] = albumArtistID.map { id in [Self.reference(id, track.albumArtist)] }
        }
    }

    /// An album (`AlbumID3`); `legacy` adds the folder-style fields getAlbumList, search2 and getStarred carry
    /// (`title`, `isDir`, `parent`).
    func album(_ album: Album, legacy: Bool = false) throws -> SubsonicObject {
        let genres = album.genre.map(GenreList.values(of:)) ?? []
        let albumArtistID = try artistID(named: album.artist)
        return try SubsonicObject { item in
            item["id"] = SubsonicID.album(album.id)
            if legacy {
                item["parent"] = albumArtistID.map(SubsonicID.artist)
                item["isDir"] = true
                item["title"] = album.title
                item["album"] = album.title
            }
            item["name"] = album.title
            item["artist"] = album.artist
            item["artistId"] = albumArtistID.map(SubsonicID.artist)
            item["coverArt"] = album.artworkHash
            item["songCount"] = album.trackCount
            item["duration"] = Int(album.duration.rounded())
            item["playCount"] = try playCount(of: album)
            item["played"] = account.isOwner ? album.lastPlayedAt : nil
            item["created"] = album.addedAt
            item["starred"] = try starred(.album, album.id)
            item["year"] = album.year
            item["genre"] = genres.first
            item["userRating"] = try rating(.album, album.id)
            item["genres"] = genres.map { name in SubsonicObject { $0["name"] = name } }
            item["artists"] = albumArtistID.map { id in [Self.reference(id, album.artist)] }
            item["displayArtist"] = album.artist
            item["sortName"] = album.title
            item["isCompilation"] = album.isCompilation
        }
    }

    /// An artist (`ArtistID3`); its cover is its first album's with artwork (`ar-ID` resolves to it), and none when
    /// no album has one.
    func artist(_ artist: Artist) throws -> SubsonicObject {
        try SubsonicObject { item in
            item["id"] = SubsonicID.artist(artist.id)
            item["name"] = artist.name
            if try hasArtwork(artist: artist.id) { item["coverArt"] = SubsonicID.artist(artist.id) }
            item["albumCount"] = artist.albumCount
            item["starred"] = try starred(.artist, artist.id)
            item["userRating"] = try rating(.artist, artist.id)
            item["sortName"] = artist.sortKey
        }
    }

    private static func reference(_ id: Int64, _ name: String) -> SubsonicObject {
        SubsonicObject {
            $0["id"] = SubsonicID.artist(id)
            $0["name"] = name
        }
    }

    // MARK: Files

    /// The file's suffix (`flac`), or the codec's name for tracks without a file.
    static func suffix(of track: Track) -> String {
        if let path = track.path {
            let suffix = URL(fileURLWithPath: path).pathExtension.lowercased()
            if !suffix.isEmpty { return suffix }
        }
        return track.info.codec.lowercased()
    }

    static func contentType(suffix: String) -> String {
        switch suffix {
        case "flac": "audio/flac"
        case "mp3": "audio/mpeg"
        case "ogg", "oga": "audio/ogg"
        case "opus": "audio/ogg"
        case "m4a", "m4b", "mp4", "alac": "audio/mp4"
        case "aac": "audio/aac"
        case "wav": "audio/wav"
        case "wv": "audio/x-wavpack"
        case "ape": "audio/x-ape"
        case "wma": "audio/x-ms-wma"
        case "aiff", "aif": "audio/aiff"
        default: "application/octet-stream"
        }
    }

    static func fileSize(_ path: String) -> Int? {
        RawFileName.status(path).map { Int($0.st_size) }
    }

    /// The path apps show: album artist / album / number and title, as a tidy library names its files (the real path
    /// on the server tells a phone nothing, and is nobody else's business).
    static func displayPath(_ track: Track, suffix: String) -> String {
        func clean(_ text: String) -> String { text.replacingOccurrences(of: "/", with: "_") }
        let number = track.trackNumber.map { String(format: "%02d - ", $0) } ?? ""
        return "\(clean(track.albumArtist))/\(clean(track.album))/\(number)\(clean(track.title)).\(suffix)"
    }
}
