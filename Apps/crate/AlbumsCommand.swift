import ArgumentParser
import CrateCore
import CrateDomain

struct Albums: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "albums", abstract: "List the albums in the library.",
                                                    discussion: "Disliked albums are left out unless --disliked is given.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "title, added, artist (album artist, ignoring 'The'/'A') or year.") var sort: AlbumSort = .artist
    @OptionGroup var order: SortOptions
    @Flag(help: "Include disliked albums.") var disliked = false
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print only album ids, one per line (for scripts).") var ids = false

    func run() async throws {
        let runtime = try await options.runtime()
        let albums = try userFacing { try runtime.collection.albums(sort: order.sort(sort), includeDisliked: disliked) }
        if json { return try printJSON(albums) }
        if ids { return albums.forEach { print($0.id) } }
        if albums.isEmpty { return print("The library is empty: add music with `crate import FOLDER`.") }
        albums.forEach { print(Line.album($0)) }
    }
}

struct Tracks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracks",
        abstract: "List an album's tracks in album order; without an album, the library's tracks, sorted.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, title, or words from 'artist title'.") var album: String?
    @Option(help: "Without an album: title, added or artist.") var sort: TrackSort = .artist
    @OptionGroup var order: SortOptions
    @Option(help: "Without an album: how many tracks.") var limit = 500
    @Option(help: "Without an album: skip this many.") var offset = 0
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        guard let album else {
            let tracks = try userFacing { try runtime.collection.tracks(sort: order.sort(sort), offset: offset, limit: limit) }
            if json { return try printJSON(tracks) }
            return tracks.forEach { print(Line.track($0)) }
        }
        let (found, tracks) = try userFacing {
            let found = try runtime.collection.resolveAlbum(album)
            return (found, try runtime.collection.tracks(albumID: found.id))
        }
        if json { return try printJSON(tracks) }
        print("\(found.artist) — \(found.title)")
        let multiDisc = found.discCount > 1
        for (i, t) in tracks.enumerated() {
            let number = multiDisc ? "\(t.discNumber ?? 1)-\(t.trackNumber ?? i + 1)" : "\(t.trackNumber ?? i + 1)"
            let artist = t.artist == found.artist ? "" : "  (\(t.artist))"
            let flags = (t.missing.map { "  MISSING (\($0.rawValue))" } ?? "") + (t.edited ? "  (edited)" : "")
            print("\(pad(number, 5))\(Line.mark(t.favorite))\(t.title)\(artist)  \(clock(t.duration))  [\(t.info.summary)]  id \(t.id)\(flags)")
        }
    }
}

struct Artists: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "artists",
        abstract: "List album artists (sorted ignoring 'The'/'A', by sort tags when present); with ARTIST, their albums.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Artist id or name.") var artist: [String] = []
    @Option(help: "With ARTIST: how to sort the albums (title, added, artist, year).") var sort: AlbumSort = .year
    @OptionGroup var order: SortOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        guard !artist.isEmpty else {
            let artists = try userFacing { try store.albumArtists(order: order.direction, favoritesFirst: order.favoritesFirst) }
            if json { return try printJSON(artists) }
            return artists.forEach { print(Line.artist($0)) }
        }
        let (found, albums) = try userFacing {
            let found = try store.resolveArtist(artist.joined(separator: " "))
            return (found, try store.albums(sort: order.sort(sort), artistID: found.id))
        }
        if json { return try printJSON(albums) }
        print(found.name)
        albums.forEach { print("  " + Line.album($0)) }
    }
}
