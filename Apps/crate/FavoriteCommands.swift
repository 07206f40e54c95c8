import ArgumentParser
import CrateCore
import CrateDomain
import CrateClient

/// Finds the item a user named: a track by id, an album, artist or playlist by id or name.
func resolveItem(_ kind: FavoriteKind, _ text: String, _ store: MusicCollection) throws -> (id: Int64, name: String) {
    switch kind {
    case .track:
        guard let id = Int64(text) else { throw CLIError("a track is named by its id (see `crate tracks ALBUM` or `crate search`)") }
        guard let t = try store.track(id: id) else { throw StoreError.trackNotFound(id) }
        return (id, "\(t.title) — \(t.artist)")
    case .album:
        let a = try store.resolveAlbum(text)
        return (a.id, "\(a.artist) — \(a.title)")
    case .artist:
        let a = try store.resolveArtist(text)
        return (a.id, a.name)
    case .playlist:
        let p = try store.resolvePlaylist(text)
        return (p.id, p.name)
    }
}

struct Fav: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fav",
        abstract: "Mark a track, album, artist or playlist as a favorite; without arguments, list the favorites.",
        discussion: "A favorite album is a liked album: liking clears a dislike.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "track, album, artist or playlist.") var kind: FavoriteKind?
    @Argument(help: "Its id, or for albums, artists and playlists its name.") var item: [String] = []
    @Flag(help: "Remove the favorite mark.") var remove = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        guard let kind else {
            let f = try userFacing { try store.favorites() }
            if json { return try printJSON(f) }
            print("Tracks (\(f.tracks.count)) — the Favorites playlist")
            f.tracks.forEach { print("  " + Line.track($0)) }
            print("Albums (\(f.albums.count))")
            f.albums.forEach { print("  " + Line.album($0)) }
            print("Artists (\(f.artists.count))")
            f.artists.forEach { print("  " + Line.artist($0)) }
            print("Playlists (\(f.playlists.count))")
            f.playlists.forEach { print("  " + Line.playlist($0)) }
            return
        }
        guard !item.isEmpty else { throw CLIError("name the \(kind.rawValue) to mark") }
        let found = try userFacing { try resolveItem(kind, item.joined(separator: " "), store) }
        let backend = try await options.backend()
        try await userFacingAsync { try await backend.setFavorite(kind, id: found.id, !remove) }
        print(remove ? "Not a favorite: \(found.name)" : "♥ \(found.name)")
    }
}

struct Dislike: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dislike",
        abstract: "Dislike an album (it leaves album lists and feeds); without arguments, list disliked albums.",
        discussion: """
            ALBUM is a library album's id or name, or applemusic:ID; an Apple Music album also gets the dislike rating \
            there. Disliking clears a like; --remove takes the dislike back here only.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, title, words from 'artist title', or applemusic:ID.") var album: [String] = []
    @Flag(help: "Remove the dislike.") var remove = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let store = try await options.runtime().collection
        guard !album.isEmpty else {
            let disliked = try userFacing { try store.favorites().dislikedAlbums }
            if json { return try printJSON(disliked) }
            if disliked.isEmpty { return print("No disliked albums.") }
            return disliked.forEach { print(Line.album($0)) }
        }
        try await OpinionCommand.run(options, album, remove ? .clear(.dislike) : .set(.dislike), json: json)
    }
}
