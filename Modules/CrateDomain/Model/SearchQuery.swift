public import Foundation

/// What a user typed into search, parsed. Free words match by prefix everywhere; the beets-style parts
/// narrow it: `artist:beat`, `album:abbey`, `title:jude`, `genre:rock`, `year:1990..1999`, `added:-30d..`,
/// `^word` (must not match), `^artist:x` (that field must not match), and a trailing sort such as `year-` or `title+`.
public struct SearchQuery: Sendable, Hashable, Codable {
    public enum TextField: String, Sendable, Codable, CaseIterable {
        case artist, album, title, genre
    }

    /// An inclusive range; either end may be open.
    public struct Range<Bound: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
        public var lower: Bound?
        public var upper: Bound?
        public init(lower: Bound?, upper: Bound?) {
            self.lower = lower
            self.upper = upper
        }
    }

    public struct Sort: Sendable, Hashable, Codable {
        public var key: SortKey
        public var order: SortDirection
        public init(key: SortKey, order: SortDirection) {
            self.key = key
            self.order = order
        }
    }

    /// Keys the query's sort term may name (the album and track lists support them).
    public enum SortKey: String, Sendable, Codable, CaseIterable {
        case title, artist, album, year, added
    }

    public var words: [String] = []
    public var excluded: [String] = []
    public var fields: [TextField: [String]] = [:]
    /// `^artist:x`: results whose field matches are left out.
    public var excludedFields: [TextField: [String]] = [:]
    public var year: Range<Int>?
    /// Seconds since 1970.
    public var added: Range<Double>?
    public var sort: Sort?

    public init(words: [String] = []) { self.words = words }

    /// True when the query narrows by more than free words (such queries skip the artist, playlist and
    /// lyrics groups, which have no years, genres or dates).
    public var hasFilters: Bool { !fields.isEmpty || !excludedFields.isEmpty || year != nil || added != nil }
    public var isEmpty: Bool { words.isEmpty && excluded.isEmpty && !hasFilters }

    /// Parses `text`; `now` anchors relative dates (`added:-30d..`).
    public static func parse(_ text: String, now: Date = Date()) throws(SearchQueryError) -> SearchQuery {
        var query = SearchQuery()
        let terms = text.split(whereSeparator: \.isWhitespace).map(String.init)
        for (i, term) in terms.enumerated() {
            if term.hasPrefix("^"), term.count > 1 {
                let rest = String(term.dropFirst())
                if let colon = rest.firstIndex(of: ":"), colon != rest.startIndex {
                    let name = rest[..<colon].lowercased(), value = String(rest[rest.index(after: colon)...])
                    if let field = TextField(rawValue: name) {
                        guard !value.isEmpty else { throw .emptyValue(field: name) }
                        query.excludedFields[field, default: []].append(value)
                        continue
                    }
                    if name == "year" || name == "added" { throw .cannotNegate(field: name) }
                }
                query.excluded.append(rest)
            } else if i == terms.count - 1, let sort = parseSort(term) {
                query.sort = sort
            } else if let colon = term.firstIndex(of: ":"), colon != term.startIndex {
                let name = term[..<colon].lowercased(), value = String(term[term.index(after: colon)...])
                try query.addField(name, value, term: term, now: now)
            } else {
                query.words.append(term)
            }
        }
        return query
    }

    private mutating func addField(_ name: String, _ value: String, term: String, now: Date) throws(SearchQueryError) {
        guard TextField(rawValue: name) != nil || name == "year" || name == "added" else {
            // Not a field we know: "ac:dc", "10:15" or "Live:" are words, as typed.
            words.append(term)
            return
        }
        guard !value.isEmpty else { throw .emptyValue(field: name) }
        if let field = TextField(rawValue: name) {
            fields[field, default: []].append(value)
        } else if name == "year" {
            let years = try Self.range(value, field: "year") { Int($0).flatMap { (1...9999).contains($0) ? $0 : nil } }
            if let lower = years.lower, let upper = years.upper, lower > upper { throw .backwards(field: name, value: value) }
            year = years
        } else {
            let periods = try Self.range(value, field: "added") { Self.period($0, now: now) }
            if let lower = periods.lower, let upper = periods.upper, lower.start > upper.end { throw .backwards(field: name, value: value) }
            added = Range(lower: periods.lower?.start, upper: periods.upper?.end)
        }
    }

    /// `a..b`, `a..`, `..b` or a single value `a` (for a date, that whole day, month or year).
    private static func range<T>(_ text: String, field: String, _ parse: (String) -> T?) throws(SearchQueryError) -> Range<T> {
        let parts = text.components(separatedBy: "..")
        func bound(_ s: String) throws(SearchQueryError) -> T? {
            if s.isEmpty { return nil }
            guard let v = parse(s) else { throw .badValue(field: field, value: s) }
            return v
        }
        switch parts.count {
        case 1:
            let v = try bound(parts[0])
            return Range(lower: v, upper: v)
        case 2:
            let r = Range(lower: try bound(parts[0]), upper: try bound(parts[1]))
            if r.lower == nil && r.upper == nil { throw .badValue(field: field, value: text) }
            return r
        default:
            throw .badValue(field: field, value: text)
        }
    }

    /// A span of time in seconds since 1970, both ends inclusive.
    struct Period: Sendable, Hashable, Codable {
        var start: Double
        var end: Double
    }

    /// `-30d`, `-2w`, `-6m`, `-1y` (an instant relative to now), or the whole UTC day, month or year of
    /// `2026-01-31` / `2026-01` / `2026` (so `added:..2026-01` takes in all of January).
    static func period(_ text: String, now: Date) -> Period? {
        if text.hasPrefix("-"), let unit = text.last, let n = Int(text.dropFirst().dropLast()), n >= 0 {
            let days: Double
            switch unit {
            case "d": days = 1
            case "w": days = 7
            case "m": days = 30
            case "y": days = 365
            default: return nil
            }
            let instant = now.timeIntervalSince1970 - Double(n) * days * 86_400
            return Period(start: instant, end: instant)
        }
        let parts = text.split(separator: "-").map { Int($0) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        var components = DateComponents()
        components.year = parts[0]
        components.month = parts.count > 1 ? parts[1] : 1
        components.day = parts.count > 2 ? parts[2] : 1
        guard let month = components.month, (1...12).contains(month), let day = components.day, (1...31).contains(day) else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let unit: Calendar.Component = parts.count == 1 ? .year : parts.count == 2 ? .month : .day
        guard let start = calendar.date(from: components), let next = calendar.date(byAdding: unit, value: 1, to: start) else {
            return nil
        }
        return Period(start: start.timeIntervalSince1970, end: next.timeIntervalSince1970 - 0.001)
    }

    /// `year-` (descending), `title+` (ascending).
    static func parseSort(_ term: String) -> Sort? {
        guard let last = term.last, last == "+" || last == "-", let key = SortKey(rawValue: String(term.dropLast())) else {
            return nil
        }
        return Sort(key: key, order: last == "+" ? .ascending : .descending)
    }
}

/// A query that cannot be understood, with what to type instead.
public enum SearchQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyValue(field: String)
    case badValue(field: String, value: String)
    /// `year:2000..1990`: a range whose start is after its end (it would find nothing).
    case backwards(field: String, value: String)
    /// `^year:…`: ranges are narrowed, not negated.
    case cannotNegate(field: String)

    public var description: String {
        switch self {
        case .emptyValue(let field):
            "'\(field):' needs a value (e.g. \(field == "year" ? "year:1990..1999" : "\(field):word"))"
        case let .badValue(field, value) where field == "year":
            "'\(value)' is not a year or a range of years (e.g. year:1997, year:1990..1999, year:2000..)"
        case let .badValue(field, value):
            "'\(value)' is not a date for \(field): (e.g. added:-30d.., added:2026-01-01..2026-06-30; units d w m y)"
        case let .backwards(field, value):
            "\(field):\(value) runs backwards: put the earlier end first (\(field):\(value.components(separatedBy: "..").reversed().joined(separator: "..")))"
        case let .cannotNegate(field):
            "^\(field): cannot be negated: narrow the range instead (e.g. \(field == "year" ? "year:..1989 or year:2000.." : "added:..2025-12-31"))"
        }
    }
}
