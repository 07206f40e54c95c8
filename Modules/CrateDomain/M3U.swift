public import Foundation

/// `.m3u` / `.m3u8` playlists: one path or URL a line, `#EXTM3U` and `#EXTINF:seconds,Artist - Title`
/// comments. Both are written as UTF-8 (as MPD does); reading falls back to Latin-1 for old `.m3u` files.
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
        return parse(String(data: data, encoding: .isoLatin1) ?? String(decoding: data, as: UTF8.self))
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

    /// The absolute path of a local entry, relative ones taken from `folder`; nil for URLs.
    public static func path(of item: Item, relativeTo folder: URL) -> String? {
        let loc = item.location
        if loc.hasPrefix("file://") { return URL(string: loc)?.path }
        if loc.contains("://") { return nil }
        let url = loc.hasPrefix("/") ? URL(fileURLWithPath: loc) : folder.appendingPathComponent(loc)
        return url.standardizedFileURL.path
    }
}
