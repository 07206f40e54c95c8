import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Radio playlists that point at streams: `.m3u`/`.m3u8` (plain lists; HLS is refused), `.pls`, `.xspf`.
enum RadioPlaylist {
    static let contentTypes: Set<String> = [
        "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
        "audio/x-scpls", "application/pls+xml", "application/xspf+xml",
    ]
    static let suffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf"]

    static func isPlaylist(contentType: String?, suffix: String?) -> Bool {
        contentType.map(contentTypes.contains) == true || suffix.map(suffixes.contains) == true
    }

    enum Problem: Error, CustomStringConvertible {
        case hls, empty
        var description: String {
            switch self {
            case .hls: "an HLS playlist (#EXT-X- segments), which Crate does not play; use the station's direct stream URL"
            case .empty: "a playlist without any http(s) stream in it"
            }
        }
    }

    /// The stream URLs the playlist lists, resolved against `base`, http(s) only, in order.
    static func entries(_ data: Data, base: URL) throws(Problem) -> [URL] {
        let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) ?? ""
        var locations: [String]
        if text.contains("<playlist") || text.contains("<location") {
            locations = XSPFLocations.parse(data)
        } else if text.lowercased().contains("[playlist]") {
            locations = text.split(whereSeparator: \.isNewline).compactMap { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("file") else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        } else {
            if text.contains("#EXT-X-") { throw .hls }
            locations = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        let urls = locations.compactMap { URL(string: $0, relativeTo: base)?.absoluteURL }
            .filter { ["http", "https"].contains($0.scheme?.lowercased() ?? "") }
        guard !urls.isEmpty else { throw .empty }
        return urls
    }
}

/// `<location>` elements of an XSPF playlist, through Foundation's XML parser.
final class XSPFLocations: NSObject, XMLParserDelegate {
    private var inLocation = false
    private var text = ""
    private var found: [String] = []

    static func parse(_ data: Data) -> [String] {
        let delegate = XSPFLocations()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        _ = parser.parse()   // a broken document still yields the locations read before the error
        return delegate.found
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "location" { inLocation = true; text = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { if inLocation { text += string } }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "location" {
            inLocation = false
            found.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
