public import Foundation

/// `.m3u` / `.m3u8` playlists: one path or URL a line, `#EXTM3U` and `#EXTINF:seconds,Artist - Title`
/// comments. Both are written as UTF-8 (as MPD does); reading takes each line as UTF-8 and falls back to Latin-1
/// for that line alone (old `.m3u` files, and files edited by tools that mixed the two).
public enum M3U {
    public struct Item: Sendable, Hashable {
        /// As written in the file: absolute, relative to the playlist's folder, or a URL.
        public var location: String
        public var seconds: Int?
        public var title: String?

        public init(location: String, seconds: Int? = nil, title: String? = nil) {
            self.location = location
            self.seconds = seconds
            self.title = title
        }
    }

    public static func decode(_ data: Data) -> [Item] {
        if let text = String(data: data, encoding: .utf8) { return parse(text) }
        // Line by line: a UTF-8 line stays UTF-8 even when another line is Latin-1.
        let lines = data.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).map { bytes in
            String(data: Data(bytes), encoding: .utf8) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
        }
        return parse(lines.joined(separator: "\n"))
    }

    public static func parse(_ text: String) -> [Item] {
        var items: [Item] = []
        var pending: (Int?, String?)?
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
            if line.isEmpty { continue }
            if line.hasPrefix("#EXTINF:") {
                let body = line.dropFirst("#EXTINF:".count)
                let comma = body.firstIndex(of: ",")
                let seconds = Int(body[..<(comma ?? body.endIndex)].trimmingCharacters(in: .whitespaces))
                let title = comma.map { String(body[body.index(after: $0)...]).trimmingCharacters(in: .whitespaces) }
                pending = (seconds.flatMap { $0 >= 0 ? $0 : nil }, title?.isEmpty == true ? nil : title)
            } else if line.hasPrefix("#") {
                continue
            } else {
                items.append(Item(location: line, seconds: pending?.0, title: pending?.1))
                pending = nil
            }
        }
        return items
    }

    public static func write(_ items: [Item]) -> String {
        var out = "#EXTM3U\n"
        for item in items {
            if item.seconds != nil || item.title != nil {
                out += "#EXTINF:\(item.seconds ?? -1),\(item.title ?? "")\n"
            }
            out += item.location + "\n"
        }
        return out
    }

    /// Where an entry points.
    public enum Location: Sendable, Hashable {
        /// A local file: absolute, or made absolute from the playlist's folder.
        case file(String)
        /// A URL other than `file:` (`http`, `https`, …).
        case url(scheme: String)
        /// A Windows path with a drive letter (`C:\Music\…`), which names no file here; `tail` is its last
        /// components with forward slashes (`Artist/Album/01 Song.flac`), for matching by the end of a path.
        case windows(tail: String)
    }

    /// Where `item` points. Backslashes in relative paths are folder separators (playlists written on Windows).
    public static func locate(_ item: Item, relativeTo folder: URL) -> Location {
        var loc = item.location
        if loc.hasPrefix("file://") { return URL(string: loc).map { .file($0.path) } ?? .url(scheme: "file") }
        if let range = loc.range(of: "://") { return .url(scheme: String(loc[..<range.lowerBound]).lowercased()) }
        let drive = loc.count > 2 && loc.first?.isASCII == true && loc.first?.isLetter == true
            && loc.dropFirst().first == ":" && (loc.dropFirst(2).first == "\\" || loc.dropFirst(2).first == "/")
        if drive || loc.hasPrefix("\\\\") {
            let parts = loc.split(whereSeparator: { $0 == "\\" || $0 == "/" }).dropFirst()
            return .windows(tail: parts.suffix(3).joined(separator: "/"))
        }
        if loc.contains("\\") { loc = loc.replacingOccurrences(of: "\\", with: "/") }
        let url = loc.hasPrefix("/") ? URL(fileURLWithPath: loc) : folder.appendingPathComponent(loc)
        return .file(url.standardizedFileURL.path)
    }

    /// The absolute path of a local entry, relative ones taken from `folder`; nil for URLs and Windows drive paths.
    public static func path(of item: Item, relativeTo folder: URL) -> String? {
        if case .file(let path) = locate(item, relativeTo: folder) { return path }
        return nil
    }

    /// The (artist, title) readings of an `#EXTINF` title "Artist - Title"; an artist or title may hold " - "
    /// itself, so every split is offered, the first dash first.
    public static func artistAndTitle(_ text: String) -> [(artist: String, title: String)] {
        var readings: [(String, String)] = []
        var searchFrom = text.startIndex
        while let dash = text.range(of: " - ", range: searchFrom..<text.endIndex) {
            let artist = text[..<dash.lowerBound].trimmingCharacters(in: .whitespaces)
            let title = text[dash.upperBound...].trimmingCharacters(in: .whitespaces)
            if !artist.isEmpty, !title.isEmpty { readings.append((artist, title)) }
            searchFrom = dash.upperBound
        }
        return readings
    }
}
