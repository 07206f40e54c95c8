import Foundation

// The JSON:API-like documents Apple answers with. Decoding is lenient on purpose: unknown keys are
// ignored, every attribute is optional, a field of an unexpected type reads as absent, and a malformed
// item in a list is skipped rather than failing the page. Only a body that is not JSON at all, or lacks
// the document's own key (`data`, `results`), is an error.

/// `{"data":[…], "next"?}`: collections, single resources (an array of one), relationship and view pages.
struct DataDocument: Decodable, Sendable {
    var data: [Resource]
    var next: String?

    enum CodingKeys: String, CodingKey { case data, next }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        data = try c.decode(LossyList<Resource>.self, forKey: .data).items
        next = c.lenient(String.self, .next)
    }
}

/// A resource object: `{id, type, href, attributes?, relationships?, views?}`.
struct Resource: Decodable, Sendable {
    var id: String
    var type: String
    var href: String?
    var attributes: Attributes?
    var relationships: [String: Relationship]
    var views: [String: Relationship]

    enum CodingKeys: String, CodingKey { case id, type, href, attributes, relationships, views }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Ids are strings; a number is accepted all the same.
        if let text = c.lenient(String.self, .id) {
            id = text
        } else if let number = c.lenient(Int64.self, .id) {
            id = String(number)
        } else {
            throw DecodingError.keyNotFound(CodingKeys.id, .init(codingPath: c.codingPath, debugDescription: "no id"))
        }
        type = c.lenient(String.self, .type) ?? ""
        href = c.lenient(String.self, .href)
        attributes = c.lenient(Attributes.self, .attributes)
        relationships = c.lenient(LossyDictionary<Relationship>.self, .relationships)?.items ?? [:]
        views = c.lenient(LossyDictionary<Relationship>.self, .views)?.items ?? [:]
    }

    init(id: String, type: String) {
        self.id = id
        self.type = type
        relationships = [:]
        views = [:]
    }
}

/// A relationship or view: `{href, data:[…], next?}`.
struct Relationship: Decodable, Sendable {
    var data: [Resource]
    var next: String?

    enum CodingKeys: String, CodingKey { case data, next }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        data = c.lenient(LossyList<Resource>.self, .data)?.items ?? []
        next = c.lenient(String.self, .next)
    }
}

/// The attributes of every resource kind this client reads (albums, songs, artists, genres,
/// storefronts, library albums), all optional.
struct Attributes: Decodable, Sendable {
    var name: String?
    var artistName: String?
    var albumName: String?
    var artwork: Artwork?
    var genreNames: [String]
    var isCompilation: Bool?
    var trackCount: Int?
    var releaseDate: String?
    var url: String?
    var durationInMillis: Int?
    var trackNumber: Int?
    var discNumber: Int?
    var previews: [Preview]
    var dateAdded: String?
    var parentId: String?
    var parentName: String?

    enum CodingKeys: String, CodingKey {
        case name, artistName, albumName, artwork, genreNames, isCompilation, trackCount, releaseDate, url
        case durationInMillis, trackNumber, discNumber, previews, dateAdded, parentId, parentName
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = c.lenient(String.self, .name)
        artistName = c.lenient(String.self, .artistName)
        albumName = c.lenient(String.self, .albumName)
        artwork = c.lenient(Artwork.self, .artwork)
        genreNames = c.lenient(LossyList<String>.self, .genreNames)?.items ?? []
        isCompilation = c.lenient(Bool.self, .isCompilation)
        trackCount = c.number(.trackCount)
        releaseDate = c.lenient(String.self, .releaseDate)
        url = c.lenient(String.self, .url)
        durationInMillis = c.number(.durationInMillis)
        trackNumber = c.number(.trackNumber)
        discNumber = c.number(.discNumber)
        previews = c.lenient(LossyList<Preview>.self, .previews)?.items ?? []
        dateAdded = c.lenient(String.self, .dateAdded)
        parentId = c.lenient(String.self, .parentId) ?? c.number(.parentId).map(String.init)
        parentName = c.lenient(String.self, .parentName)
    }
}

/// `{url, width, height, …}`: `url` is a template with `{w}` and `{h}`; the sizes are maxima and may be null.
struct Artwork: Decodable, Sendable {
    var url: String
    var width: Int?
    var height: Int?

    enum CodingKeys: String, CodingKey { case url, width, height }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        width = c.number(.width)
        height = c.number(.height)
    }
}

struct Preview: Decodable, Sendable {
    var url: String
}

/// Charts: `{"results":{"albums":[chart, …]}}`: each type maps to an array of charts.
struct ChartsDocument: Decodable, Sendable {
    var albums: [Chart]

    struct Chart: Decodable, Sendable {
        var chart: String?
        var data: [Resource]
        var next: String?

        enum CodingKeys: String, CodingKey { case chart, data, next }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            chart = c.lenient(String.self, .chart)
            data = c.lenient(LossyList<Resource>.self, .data)?.items ?? []
            next = c.lenient(String.self, .next)
        }
    }

    enum CodingKeys: String, CodingKey { case results }
    enum ResultKeys: String, CodingKey { case albums }

    init(from decoder: any Decoder) throws {
        let results = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(keyedBy: ResultKeys.self, forKey: .results)
        // An object where an array belongs (the search shape) is read as a single chart.
        albums = results.lenient(LossyList<Chart>.self, .albums)?.items
            ?? results.lenient(Chart.self, .albums).map { [$0] } ?? []
    }

    /// The most-played chart when it is there, else the first.
    var mostPlayed: Chart? {
        albums.first { $0.chart == "most-played" } ?? albums.first
    }
}

/// Search: `{"results":{"albums":{data, next?}, "songs":{…}}}`: each type maps to ONE object, and a
/// type without hits is missing altogether.
struct SearchDocument: Decodable, Sendable {
    var albums: Relationship?
    var artists: Relationship?
    var songs: Relationship?

    enum CodingKeys: String, CodingKey { case results }
    enum ResultKeys: String, CodingKey { case albums, artists, songs }

    init(from decoder: any Decoder) throws {
        let results = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(keyedBy: ResultKeys.self, forKey: .results)
        func section(_ key: ResultKeys) -> Relationship? {
            // An array where an object belongs (the charts shape) gives its first element.
            results.lenient(Relationship.self, key) ?? results.lenient(LossyList<Relationship>.self, key)?.items.first
        }
        albums = section(.albums)
        artists = section(.artists)
        songs = section(.songs)
    }
}

/// `{"errors":[{id, title, detail?, status, code?, source?}]}`; `status` and `code` are strings.
struct ErrorDocument: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        var title: String?
        var detail: String?
        var code: String?
        var parameter: String?

        enum CodingKeys: String, CodingKey { case title, detail, code, source }
        enum SourceKeys: String, CodingKey { case parameter }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = c.lenient(String.self, .title)
            detail = c.lenient(String.self, .detail)
            code = c.lenient(String.self, .code) ?? c.number(.code).map(String.init)
            parameter = (try? c.nestedContainer(keyedBy: SourceKeys.self, forKey: .source))?.lenient(String.self, .parameter)
        }
    }

    var errors: [Item]

    enum CodingKeys: String, CodingKey { case errors }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        errors = c.lenient(LossyList<Item>.self, .errors)?.items ?? []
    }

    /// A short reason from the first error: its detail (or title), the parameter it names, cut to one line.
    var summary: String? {
        guard let first = errors.first, let text = first.detail ?? first.title, !text.isEmpty else { return nil }
        var line = text.replacingOccurrences(of: "\n", with: " ")
        if line.count > 160 { line = String(line.prefix(157)) + "…" }
        if let parameter = first.parameter { line += " (parameter \(parameter))" }
        return line
    }

    /// Reads an error envelope from a body that may be empty or not JSON at all.
    static func read(_ data: Data) -> ErrorDocument? {
        data.isEmpty ? nil : try? JSONDecoder().decode(ErrorDocument.self, from: data)
    }
}

/// A list whose malformed items are skipped.
struct LossyList<Element: Decodable & Sendable>: Decodable, Sendable {
    var items: [Element]

    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        var items: [Element] = []
        while !c.isAtEnd {
            let before = c.currentIndex
            if let item = try? c.decode(Element.self) {
                items.append(item)
            } else {
                SkippedValue.skip(&c)
            }
            // A value that could be neither read nor stepped over ends the list rather than looping.
            if c.currentIndex == before { break }
        }
        self.items = items
    }
}

/// Any JSON value, read and thrown away: decoding it steps a list past a malformed item.
private struct SkippedValue: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}

    static func skip(_ c: inout any UnkeyedDecodingContainer) {
        _ = try? c.decode(SkippedValue.self)
    }
}

/// A dictionary whose malformed values are skipped.
struct LossyDictionary<Value: Decodable & Sendable>: Decodable, Sendable {
    var items: [String: Value]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        var items: [String: Value] = [:]
        for key in c.allKeys {
            if let value = try? c.decode(Value.self, forKey: key) { items[key.stringValue] = value }
        }
        self.items = items
    }
}

extension KeyedDecodingContainer {
    /// The value when present and of the expected type; nil otherwise.
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }

    /// An integer written as an integer, a float or a numeric string.
    func number(_ key: Key) -> Int? {
        if let n = lenient(Int.self, key) { return n }
        if let d = lenient(Double.self, key), d.isFinite, abs(d) < 1e15 { return Int(d) }
        if let s = lenient(String.self, key) { return Int(s) }
        return nil
    }
}
