import CrateCore
import Foundation
@testable import HTTPFrontEnd
import Testing

/// The wall's first screen as crated writes it into `/` (the browser tests check the page adopts it): the first
/// page's tiles, the start of the wall as JSON beside them with its length, and nothing an album's text can break
/// out of.
@Suite struct WallFirstScreenTests {
    static let index = """
        <ul id="wall" data-artwork="300"><!--wall-first-screen--></ul>
        <!--wall-first-page-->
        """

    /// Entries as the API sends them (FeedEntry is made by the feeds only; decoding is how a front end meets it).
    static func entries(_ count: Int, first: [String: String] = [:]) throws -> [FeedEntry] {
        var list: [[String: String]] = (0..<count).map { i in
            ["id": "\(i + 1)", "title": "Album \(i + 1)", "artist": "Artist", "artworkURL": "/api/v1/artwork/h\(i)?size=300",
             "source": "local", "signal": "wildCard", "signalTitle": "Wild Card"]
        }
        if count > 0 { list[0].merge(first) { $1 } }
        return try JSONDecoder().decode([FeedEntry].self, from: JSONEncoder().encode(list))
    }

    struct Served: Decodable {
        var entries: [FeedEntry]
        var total: Int
    }

    @Test func theFirstPageIsTheTilesAndTheEntriesTheJSON() throws {
        let entries = try Self.entries(120)
        let html = WallFirstScreen.render(Self.index, entries: entries, total: 1040, artworkSize: 300)
        #expect(html.components(separatedBy: "<li class=\"tile\"").count - 1 == WallFirstScreen.tiles)
        #expect(html.contains("<li class=\"tile\" data-album=\"1\"><a href=\"#/album/1\" aria-label=\"Album 1 — Artist\">"
                              + "<img src=\"/api/v1/artwork/h0?size=300\" alt=\"\" width=\"300\" height=\"300\" loading=\"eager\" decoding=\"async\">"))
        #expect(html.contains("data-album=\"40\"") && !html.contains("data-album=\"41\""))
        let json = try #require(html.range(of: "<script type=\"application/json\" id=\"wall-first\">").map { html[$0.upperBound...] })
        let page = try JSONDecoder().decode(Served.self, from: Data(json.prefix { $0 != "<" }.utf8))
        #expect(page.entries == entries && page.total == 1040)
        #expect(!html.contains("<!--wall-first"))
        // The same wall writes the same page (its ETag).
        #expect(WallFirstScreen.render(Self.index, entries: entries, total: 1040, artworkSize: 300) == html)
    }

    @Test func withoutAWallThePageAsksForItItself() throws {
        for entries in [nil, try Self.entries(0)] {
            let html = WallFirstScreen.render(Self.index, entries: entries, total: 1040, artworkSize: 300)
            #expect(html == "<ul id=\"wall\" data-artwork=\"300\"></ul>\n", "\(html)")
        }
    }

    /// artwork.thumbnail_size: the page's covers at another size, and wall.js told it (`#wall`'s `data-artwork`).
    @Test func theCoversComeAtTheConfiguredSize() throws {
        let entries = try Self.entries(2, first: ["artworkURL": "/api/v1/artwork/h0?size=200"])
        let html = WallFirstScreen.render(Self.index, entries: entries, total: 2, artworkSize: 200)
        #expect(html.hasPrefix("<ul id=\"wall\" data-artwork=\"200\">"), "\(html)")
        #expect(html.contains("<img src=\"/api/v1/artwork/h0?size=200\" alt=\"\" width=\"200\" height=\"200\""))
        let empty = WallFirstScreen.render(Self.index, entries: nil, total: 0, artworkSize: 512)
        #expect(empty == "<ul id=\"wall\" data-artwork=\"512\"></ul>\n", "\(empty)")
    }

    @Test func anAlbumsTextStaysText() throws {
        let hostile = "</script><img src=x onerror=\"alert(1)\"> & 'quotes' <!--"
        let entries = try Self.entries(3, first: ["title": hostile, "artist": "<b>\"A\"</b>", "artworkURL": "/x?a=1&b=\"2\""])
        let html = WallFirstScreen.render(Self.index, entries: entries, total: 3, artworkSize: 300)
        #expect(!html.contains("<img src=x") && !html.contains("<b>") && !html.contains("</script><"))
        #expect(html.contains("&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;quotes&#39; &lt;!--"))
        #expect(html.contains("src=\"/x?a=1&amp;b=&quot;2&quot;\""))
        // The JSON holds no `<` at all: nothing in it can close its element or open a comment.
        let json = try #require(html.components(separatedBy: "id=\"wall-first\">").last?.components(separatedBy: "</script>").first)
        #expect(!json.contains("<"))
        let page = try JSONDecoder().decode(Served.self, from: Data(json.utf8))
        #expect(page.entries.first?.title == hostile && page.total == 3)
    }

    @Test func catalogAlbumsOpenTheirCatalogPageAndUntitledOnesShowTheirTitle() throws {
        let entries = try Self.entries(2, first: ["id": "applemusic:12 3/ä", "artworkURL": ""])
        var catalog = entries[0]
        catalog.artworkURL = nil
        let html = WallFirstScreen.tile(catalog, size: 300)
        // As encodeURIComponent writes it.
        #expect(html.contains("href=\"#/catalog/12%203%2F%C3%A4\""), "\(html)")
        #expect(html.contains("<span class=\"blank\">Album 1</span>") && !html.contains("<img"))
        #expect(WallFirstScreen.uriComponent("a-_.!~*'()b c&") == "a-_.!~*'()b%20c%26")
    }
}
