import CrateCore
import Foundation

/// The wall's first screen, written into `/` by the daemon (issue 30): its covers are in the HTML, so the browser
/// fetches them while the page's scripts load, not after the scripts have run and asked for the wall. Beside the
/// tiles, the start of `GET /api/v1/wall?artwork=N`'s entries as JSON (`#wall-first`, with the wall's `total`):
/// wall.js adopts the tiles and takes the next pages from it, and asks for the rest of a wall scrolled further only
/// when it is scrolled to. The tiles are the markup wall.js's `tile()` makes (the browser tests compare the two).
enum WallFirstScreen {
    /// wall.js's page (`pageSize`).
    static let tiles = FeedService.pageSize
    /// index.html's cover size for the wall, which wall.js reads (`#wall`'s `data-artwork`); crated writes
    /// `artwork.thumbnail_size` there.
    static let sizeAttribute = "data-artwork=\"300\""
    /// The entries written into the page: three pages. A wall scrolled to a thousand albums would otherwise put
    /// 300 KB of JSON into every page (measured: 37 ms to write it, and a later first screen).
    static let entries = 3 * FeedService.pageSize
    /// Where index.html takes the tiles (inside `#wall`) and the JSON (after it).
    static let tilesMarker = "<!--wall-first-screen-->"
    static let pageMarker = "<!--wall-first-page-->"

    /// index.html with the wall's cover size (`artworkSize` pixels) and the first screen of `entries` (the start of
    /// a wall of `total`, at that size) in it; without a wall (none composed yet) the markers go and the page asks
    /// for the wall itself.
    static func render(_ index: String, entries: [FeedEntry]?, total: Int, artworkSize: Int) -> String {
        let sized = index.replacingOccurrences(of: sizeAttribute, with: "data-artwork=\"\(artworkSize)\"")
        guard let entries, !entries.isEmpty, let json = pageJSON(entries, total: max(total, entries.count)) else {
            return sized.replacingOccurrences(of: tilesMarker, with: "").replacingOccurrences(of: pageMarker, with: "")
        }
        var tilesHTML = ""
        tilesHTML.reserveCapacity(tiles * 420)
        for entry in entries.prefix(tiles) { tilesHTML += tile(entry, size: artworkSize) }
        return sized.replacingOccurrences(of: tilesMarker, with: tilesHTML)
            .replacingOccurrences(of: pageMarker, with: "<script type=\"application/json\" id=\"wall-first\">\(json)</script>")
    }

    struct Page: Encodable {
        var entries: [FeedEntry]
        var total: Int
    }

    /// `{"entries": […], "total": N}` (entries as the API answers them), safe inside a `<script>` element: every `<`
    /// is written as `\u003c`, so no text of an album can close the element or open a comment in it. Keys sorted:
    /// the same wall makes the same page (and ETag); Foundation's encoder otherwise orders them anew each time.
    static func pageJSON(_ entries: [FeedEntry], total: Int) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(Page(entries: entries, total: total)) else { return nil }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// One tile as wall.js's `tile()` makes it (a first-screen cover: loaded eagerly, no entrance animation).
    static func tile(_ entry: FeedEntry, size: Int) -> String {
        let id = entry.id
        // Library albums open their page; catalog albums (`applemusic:ID`) their catalog page.
        let local = !id.isEmpty && id.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let href = local ? "#/album/\(id)" : "#/catalog/\(uriComponent(id.hasPrefix("applemusic:") ? String(id.dropFirst(11)) : id))"
        var html = "<li class=\"tile\" data-album=\"\(escape(id))\"><a href=\"\(escape(href))\" aria-label=\"\(escape("\(entry.title) — \(entry.artist)"))\">"
        if let url = entry.artworkURL {
            html += "<img src=\"\(escape(url))\" alt=\"\" width=\"\(size)\" height=\"\(size)\" loading=\"eager\" decoding=\"async\">"
        } else {
            html += "<span class=\"blank\">\(escape(entry.title))</span>"
        }
        html += "<span class=\"caption\" aria-hidden=\"true\"><strong>\(escape(entry.title))</strong><span>\(escape(entry.artist))</span></span></a></li>"
        return html
    }

    /// Text for an HTML attribute value or element content.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
            || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// JavaScript's `encodeURIComponent`: everything but letters, digits and `-_.!~*'()` percent-encoded as UTF-8.
    static func uriComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: uriUnreserved) ?? ""
    }

    private static let uriUnreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
}
