public import ArgumentParser
import CrateCore
public import CrateDomain
import FoundationInternationalization

// Sort keys are typed on the command line as their raw values.
extension SortDirection: ExpressibleByArgument {}
extension AlbumSort: ExpressibleByArgument {}
extension TrackSort: ExpressibleByArgument {}
extension PlaylistSort: ExpressibleByArgument {}
extension PlaylistTrackSort: ExpressibleByArgument {}
extension FavoriteKind: ExpressibleByArgument {}
extension SearchScope: ExpressibleByArgument {}
extension SearchGroup: ExpressibleByArgument {}

/// Sort options every list command shares.
struct SortOptions: ParsableArguments {
    @Flag(help: "Sort descending.") var desc = false
    @Flag(name: .long, help: "Favorites first.") var favoritesFirst = false

    var direction: SortDirection { desc ? .descending : .ascending }
    func sort<K>(_ key: K) -> ListSort<K> { ListSort(key, direction, favoritesFirst: favoritesFirst) }
}

/// One line per item, as every listing prints them. A ♥ marks favorites, ✗ disliked albums.
enum Line {
    static func mark(_ favorite: Bool) -> String { favorite ? "♥ " : "" }

    static func album(_ a: Album) -> String {
        let year = a.year.map { " (\($0))" } ?? ""
        let discs = a.discCount > 1 ? ", \(a.discCount) discs" : ""
        let opinion = a.opinion == .favorite ? "♥ " : a.opinion == .dislike ? "✗ " : ""
        return "\(pad(FeedAlbumRef.text(a), 5))\(opinion)\(a.artist) — \(a.title)\(year)  [\(a.trackCount) tracks\(discs), \(clock(a.duration))]"
    }

    static func track(_ t: Track, number: String? = nil) -> String {
        let missing = t.missing.map { "  MISSING (\($0.rawValue))" } ?? ""
        return "\(pad(number ?? String(t.id), 6))\(mark(t.favorite))\(t.title) — \(t.artist) (\(t.album))  \(clock(t.duration))"
            + (number == nil ? "" : "  id \(t.id)") + missing
    }

    static func artist(_ a: Artist) -> String {
        "\(pad(String(a.id), 5))\(mark(a.favorite))\(a.name)  [\(counted(a.albumCount, "album")), \(counted(a.trackCount, "track"))]"
    }

    static func playlist(_ p: Playlist) -> String {
        let played = p.lastPlayedAt.map { "  played \($0.formatted(date: .abbreviated, time: .shortened))" } ?? ""
        return "\(pad(String(p.id), 5))\(mark(p.favorite))\(p.name)  [\(p.trackCount) tracks, \(clock(p.duration))]\(played)"
    }
}
