import Foundation

/// A song's lyrics as the lines apps show. Crate keeps lyrics as the text the file's tags hold; taggers often write
/// LRC there (`[01:02.50]a line`), so text whose every line with words carries a time is read as timed lines
/// (`synced`), each from its start in milliseconds. Any other text is its lines as they are, untimed.
struct LyricsLines: Sendable, Equatable {
    struct Line: Sendable, Equatable {
        /// Milliseconds from the song's start; nil when the lyrics are not timed.
        var start: Int?
        var text: String
    }

    var synced: Bool
    var lines: [Line]

    init(_ text: String) {
        let raw = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let timed = Self.timed(raw) {
            synced = true
            lines = timed
        } else {
            synced = false
            var untimed = raw.map { $0.trimmingCharacters(in: .whitespaces) }
            while untimed.first?.isEmpty == true { untimed.removeFirst() }
            while untimed.last?.isEmpty == true { untimed.removeLast() }
            lines = untimed.map { Line(start: nil, text: $0) }
        }
    }

    /// The words alone, a line each (what `getLyrics` answers: it has no times).
    var plainText: String { lines.map(\.text).joined(separator: "\n") }

    /// LRC's lines in time order, or nil when the text is not LRC: no time at all, or a line with words and none.
    /// A line with several times (a chorus) is shown at each; `[offset:±ms]` moves every line (a positive offset
    /// shows lines sooner, as LRC players do); other tags (`[ar:…]`, `[ti:…]`) are not lyrics.
    private static func timed(_ raw: [String]) -> [Line]? {
        var offset = 0
        var timed: [(start: Int, order: Int, text: String)] = []
        for line in raw {
            var rest = Substring(line.trimmingCharacters(in: .whitespaces))
            var times: [Int] = []
            while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                let tag = rest[rest.index(after: rest.startIndex)..<close]
                if let time = milliseconds(tag) {
                    times.append(time)
                } else if let colon = tag.firstIndex(of: ":"), tag[..<colon].allSatisfy({ $0.isLetter || $0 == "#" }) {
                    if tag[..<colon].lowercased() == "offset" {
                        offset = Int(tag[tag.index(after: colon)...].trimmingCharacters(in: .whitespaces)) ?? offset
                    }
                } else {
                    break
                }
                rest = rest[rest.index(after: close)...]
            }
            let words = rest.trimmingCharacters(in: .whitespaces)
            if times.isEmpty {
                // Untimed words mean this is not LRC; blank lines and tag lines are fine.
                if !words.isEmpty { return nil }
                continue
            }
            for time in times { timed.append((time, timed.count, words)) }
        }
        guard !timed.isEmpty else { return nil }
        return timed.sorted { ($0.start, $0.order) < ($1.start, $1.order) }.map { Line(start: max(0, $0.start - offset), text: $0.text) }
    }

    /// `mm:ss`, `mm:ss.xx` (hundredths, or tenths or thousandths) or `mm:ss:xx` in milliseconds; nil for anything else.
    static func milliseconds(_ tag: Substring) -> Int? {
        let parts = tag.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let minutes = Int(parts[0]), minutes >= 0, parts[0].allSatisfy(\.isNumber) else { return nil }
        var seconds = parts[1], fraction: Substring = ""
        if parts.count == 3 {
            fraction = parts[2]
        } else if let dot = seconds.firstIndex(of: ".") {
            fraction = seconds[seconds.index(after: dot)...]
            seconds = seconds[..<dot]
        }
        guard let whole = Int(seconds), seconds.count <= 2, seconds.allSatisfy(\.isNumber), whole < 60,
              fraction.count <= 3, fraction.allSatisfy(\.isNumber) else { return nil }
        let thousandths = fraction.isEmpty ? 0 : Int(String(fraction).padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
        return (minutes * 60 + whole) * 1000 + thousandths
    }
}
