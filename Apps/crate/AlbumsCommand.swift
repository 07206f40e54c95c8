import ArgumentParser
import CrateCore

struct Albums: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the albums in the library.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print only album ids, one per line (for scripts).") var ids = false

    func run() async throws {
        let runtime = try await options.runtime()
        let albums = try userFacing { try runtime.store.albums() }
        if json { return try printJSON(albums) }
        if ids { return albums.forEach { print($0.id) } }
        if albums.isEmpty { return print("The library is empty: add music with `crate import FOLDER`.") }
        for a in albums {
            let year = a.year.map { " (\($0))" } ?? ""
            let discs = a.discCount > 1 ? ", \(a.discCount) discs" : ""
            print("\(pad(String(a.id), 5))\(a.artist) — \(a.title)\(year)  [\(a.trackCount) tracks\(discs), \(clock(a.duration))]")
        }
    }
}

struct Tracks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List an album's tracks in album order.")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, title, or words from 'artist title'.") var album: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        let (found, tracks) = try userFacing {
            let found = try runtime.store.resolveAlbum(album)
            return (found, try runtime.store.tracks(albumID: found.id))
        }
        if json { return try printJSON(tracks) }
        print("\(found.artist) — \(found.title)")
        let multiDisc = found.discCount > 1
        for (i, t) in tracks.enumerated() {
            let number = multiDisc ? "\(t.discNumber ?? 1)-\(t.trackNumber ?? i + 1)" : "\(t.trackNumber ?? i + 1)"
            let artist = t.artist == found.artist ? "" : "  (\(t.artist))"
            let flags = (t.missing.map { "  MISSING (\($0.rawValue))" } ?? "") + (t.edited ? "  (edited)" : "")
            print("\(pad(number, 5))\(t.title)\(artist)  \(clock(t.duration))  [\(t.info.summary)]  id \(t.id)\(flags)")
        }
    }
}
