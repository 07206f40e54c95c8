import Foundation

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
            locations = XSPFLocations.parse(text)
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

/// `<location>` elements of an XSPF playlist, read by a small scanner. Not Foundation's XMLParser: on Linux it
/// crashes on malformed input (a processing instruction without data such as `<?x?>`, bytes that are not UTF-8 in
/// a comment or a tag name), and a playlist comes from any server (found by fuzzing, Fuzz/RadioPlaylist).
/// Comments, processing instructions and declarations are skipped, CDATA is taken as it is, the five XML entities
/// and character references are decoded; text inside other elements within a `<location>` counts, as it did.
/// A broken document still yields the locations read before the break; a `<location>` never closed is dropped.
enum XSPFLocations {
    static func parse(_ text: String) -> [String] {
        let b = Array(text.utf8)
        let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
        var found: [String] = []
        var location: [UInt8]?  // the text of the open <location>, nil outside one
        var i = 0
        while i < b.count {
            guard b[i] == lt else {
                let next = b[i...].firstIndex(of: lt) ?? b.count
                location?.append(contentsOf: decodeEntities(b[i..<next]))
                i = next
                continue
            }
            if has(b, i, "<!--") { i = after(b, i + 4, "-->"); continue }
            if has(b, i, "<?") { i = after(b, i + 2, "?>"); continue }
            if has(b, i, "<![CDATA[") {
                let end = find(b, i + 9, "]]>") ?? b.count
                location?.append(contentsOf: b[(i + 9)..<end])
                i = min(b.count, end + 3)
                continue
            }
            // A tag up to its '>', which may stand inside an attribute value (quoted, after '=').
            var end = i + 1
            var quote: UInt8?
            var afterEquals = false
            while end < b.count, quote != nil || b[end] != gt {
                let c = b[end]
                if let q = quote {
                    if c == q { quote = nil }
                } else if afterEquals, c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                }
                if !isSpace(c) { afterEquals = quote == nil && c == UInt8(ascii: "=") }
                end += 1
            }
            let closing = i + 1 < end && b[i + 1] == slash
            let nameStart = closing ? i + 2 : i + 1
            var nameEnd = nameStart
            while nameEnd < end, b[nameEnd] != slash, !isSpace(b[nameEnd]) { nameEnd += 1 }
            if b[nameStart..<nameEnd].elementsEqual("location".utf8) {
                if closing {
                    if let text = location { found.append(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) }
                    location = nil
                } else if end < b.count, b[end - 1] == slash {
                    found.append("")  // <location/>
                } else {
                    location = []
                }
            }
            i = min(b.count, end + 1)
        }
        return found
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private static func has(_ b: [UInt8], _ at: Int, _ literal: String) -> Bool {
        b[at...].starts(with: literal.utf8)
    }

    /// Where `literal` starts at or after `from`.
    private static func find(_ b: [UInt8], _ from: Int, _ literal: String) -> Int? {
        let l = Array(literal.utf8)
        var at = from
        while at + l.count <= b.count {
            if b[at] == l[0], b[at..<at + l.count].elementsEqual(l) { return at }
            at += 1
        }
        return nil
    }

    /// Just past `literal` at or after `from`; the end when it never comes.
    private static func after(_ b: [UInt8], _ from: Int, _ literal: String) -> Int {
        find(b, from, literal).map { $0 + literal.utf8.count } ?? b.count
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xHH;` decoded; anything else is kept as written.
    private static func decodeEntities(_ s: ArraySlice<UInt8>) -> [UInt8] {
        guard s.contains(UInt8(ascii: "&")) else { return Array(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "&"), let semicolon = s[i..<min(s.endIndex, i + 12)].firstIndex(of: UInt8(ascii: ";")) {
                let name = String(decoding: s[(i + 1)..<semicolon], as: UTF8.self)
                var scalar: Unicode.Scalar?
                switch name {
                case "amp": scalar = "&"
                case "lt": scalar = "<"
                case "gt": scalar = ">"
                case "quot": scalar = "\""
                case "apos": scalar = "'"
                default:
                    if name.hasPrefix("#x") || name.hasPrefix("#X") {
                        scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    } else if name.hasPrefix("#") {
                        scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                    }
                }
                if let scalar {
                    out.append(contentsOf: String(scalar).utf8)
                    i = semicolon + 1
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return out
    }
}
