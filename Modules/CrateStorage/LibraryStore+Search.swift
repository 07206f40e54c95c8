public import CrateDomain
import Foundation
import GRDB
import Synchronization

/// Local search over the FTS5 index (see `SearchIndex`): one query, grouped artist → album → track →
/// playlist → lyrics, each group ranked by bm25 (`SearchRanking` for queries of several words) or sorted as the query
/// asks, and paged on its own.
extension LibraryStore {
    /// How one group maps the query onto its tables.
    private struct GroupPlan {
        var fts: String
        /// The base table's id column joined to the index's rowid.
        var idColumn: String
        var from: String
        /// FTS columns for `artist:`, `album:`, `title:`; a field missing here rules the group out.
        var columns: [SearchQuery.TextField: String]
        /// The indexed columns `SearchRanking` reads, all of them, in the index's order; none: FTS5 ranks (lyrics).
        var ranked: [String] = []
        var genre: String?
        var year: String?
        var added: String?
        var baseFilter: String?
        /// `baseFilter` in terms of the index's rowid, for queries answered by the index alone: built from the few
        /// hidden rows looked up once per search (`Hidden`), never a scan of the library per query.
        var rowidFilter: (Hidden) -> String? = { _ in nil }
        var order: (SearchQuery.Sort) -> String?
    }

    private static func plan(_ group: SearchGroup) -> GroupPlan {
        switch group {
        case .artists:
            // Artists known only from hidden albums (the streams album, catalog previews) are not the library's.
            return GroupPlan(fts: "artist_fts", idColumn: "artist.id", from: "artist", columns: [.artist: "name"],
                             ranked: ["name"], baseFilter: "NOT \(hiddenOnlyArtist)",
                             rowidFilter: { $0.artists.isEmpty ? nil : "rowid NOT IN (\(Hidden.list($0.artists)))" },
                             order: { _ in nil })
        case .albums:
            return GroupPlan(fts: "album_fts", idColumn: "album.id",
                             from: "album JOIN artist ON artist.id = album.artist_id",
                             columns: [.artist: "artist", .album: "title"],
                             ranked: ["title", "artist"], genre: "album.genre", year: "album.year",
                             added: "album.added_at", baseFilter: notDisliked + " AND " + notStreams,
                             rowidFilter: { hidden in
                                 "rowid NOT IN (SELECT item_id FROM opinion WHERE kind = 'album' AND value = 'dislike')"
                                     + (hidden.albums.isEmpty ? "" : " AND rowid NOT IN (\(Hidden.list(hidden.albums)))")
                             },
                             order: { sort in
                                 switch sort.key {
                                 case .title, .album: albumOrder(.title, sort.order)
                                 case .artist: albumOrder(.artist, sort.order)
                                 case .year: albumOrder(.year, sort.order)
                                 case .added: albumOrder(.added, sort.order)
                                 }
                             })
        case .tracks:
            return GroupPlan(fts: "track_fts", idColumn: "track.id", from: """
                track JOIN album ON album.id = track.album_id JOIN artist AS album_artist ON album_artist.id = album.artist_id
                LEFT JOIN track_override AS o ON o.track_id = track.id
                """, columns: [.artist: "artist", .album: "album", .title: "title"],
                             ranked: ["title", "artist", "album"],
                             genre: "COALESCE(o.genre, track.genre)",
                             year: "CAST(substr(COALESCE(o.date, track.date), 1, 4) AS INTEGER)",
                             added: "track.added_at", baseFilter: notStreams,
                             // Stream tracks are found as stations.
                             rowidFilter: { hidden in
                                 hidden.albums.isEmpty ? nil
                                     : "rowid NOT IN (SELECT id FROM track WHERE album_id IN (\(Hidden.list(hidden.albums))))"
                             },
                             order: { sort in
                                 switch sort.key {
                                 case .title: trackOrder(.title, sort.order)
                                 case .artist: trackOrder(.artist, sort.order)
                                 case .added: trackOrder(.added, sort.order)
                                 case .album: "COALESCE(o.album, album.title) COLLATE NOCASE \(sort.order == .ascending ? "ASC" : "DESC"), "
                                     + "COALESCE(track.disc_number, 1), COALESCE(o.track_number, track.track_number), track.id"
                                 case .year: "CAST(substr(COALESCE(o.date, track.date), 1, 4) AS INTEGER) "
                                     + "\(sort.order == .ascending ? "ASC" : "DESC"), album.title COLLATE NOCASE, "
                                     + "COALESCE(track.disc_number, 1), COALESCE(o.track_number, track.track_number), track.id"
                                 }
                             })
        case .playlists:
            return GroupPlan(fts: "playlist_fts", idColumn: "playlist.id", from: "playlist", columns: [:], ranked: ["name"],
                             order: { _ in nil })
        case .lyrics:
            // Long texts: ranked by FTS5 whatever the query (reading and tokenizing lyrics here would cost more).
            return GroupPlan(fts: "lyrics_fts", idColumn: "lyrics.track_id", from: "lyrics", columns: [:], order: { _ in nil })
        case .stations:
            // Matched by name outside the index (see `search`); never planned.
            return GroupPlan(fts: "", idColumn: "station.id", from: "station", columns: [:], order: { _ in nil })
        }
    }

    /// Searches the library. `groups` picks which groups to fill; each gets `limit` items from `offset`.
    /// Groups a query's filters do not apply to (artists have no year) are left out, as are empty ones.
    public func search(_ query: SearchQuery, text: String, groups: [SearchGroup] = SearchGroup.allCases,
                       offset: Int = 0, limit: Int = 5) throws -> SearchResults {
        try search(query, text: text, groups: groups, offset: offset, limit: limit, statements: nil)
    }

    /// `statements` hears every SQL statement the search runs, with its arguments (the test that guards against
    /// statements reading whole tables: SearchStoreTests), from whichever read runs it.
    ///
    /// The groups are independent reads, so they run on up to `searchLanes` pooled connections at once, each lane
    /// taking the next group in `searchOrder` (tracks first: at 100,000 tracks they cost as much as the others
    /// together). A search's time is then about its slowest group rather than the sum of them. Each lane reads its own
    /// snapshot: an import committing in between can show in one group and not yet in another, as it would a moment
    /// later anyway.
    func search(_ query: SearchQuery, text: String, groups: [SearchGroup], offset: Int, limit: Int,
                statements: (@Sendable (String) -> Void)?) throws -> SearchResults {
        let work = Self.searchOrder.filter(groups.contains)
        let next = Mutex(0)
        let found = Mutex<[SearchGroup: SearchGroupResult]>([:])
        let failure = Mutex<(any Error)?>(nil)
        let lane: @Sendable (Int) -> Void = { _ in
            do {
                try self.read { db in
                    if let statements {
                        db.trace(options: .statement) { event in
                            if case .statement(let statement) = event { statements(statement.expandedSQL) }
                        }
                    }
                    defer { if statements != nil { db.trace(options: .statement, nil) } }
                    let hidden = try Hidden.load(db)
                    while failure.withLock({ $0 == nil }) {
                        let index = next.withLock { index in defer { index += 1 }; return index }
                        guard index < work.count else { return }
                        let group = work[index]
                        if let result = try Self.groupResult(group, query, hidden: hidden, offset: max(0, offset), limit: max(0, limit), db) {
                            found.withLock { $0[group] = result }
                        }
                    }
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
        let lanes = min(work.count, Self.searchLanes)
        if lanes > 1 { DispatchQueue.concurrentPerform(iterations: lanes, execute: lane) } else { lane(0) }
        if let error = failure.withLock({ $0 }) { throw error }
        let results = found.withLock { found in SearchGroup.allCases.compactMap { found[$0] } }
        return SearchResults(query: text, scope: .local, groups: results)
    }

    /// The order lanes take groups in: the costly first, so the others fill in beside them.
    private static let searchOrder: [SearchGroup] = [.tracks, .albums, .artists, .lyrics, .playlists, .stations]
    /// Reads one search runs at once: the cores, at most three (more lanes than cores only wait on each other).
    private static let searchLanes = min(3, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// One group's page, or nil when it has no matches or the query's filters rule it out.
    private static func groupResult(_ group: SearchGroup, _ query: SearchQuery, hidden: Hidden, offset: Int, limit: Int,
                                    _ db: Database) throws -> SearchGroupResult? {
        if group == .stations {
            // Stations are few: matched by their folded names, words only (field terms are about music).
            guard query.fields.isEmpty, query.year == nil, query.added == nil, !query.words.isEmpty else { return nil }
            let found = try stationsMatching(query.words, db)
            guard !found.isEmpty else { return nil }
            var result = SearchGroupResult(group: .stations, total: found.count, offset: offset)
            result.stations = Array(found.dropFirst(offset).prefix(limit))
            return result
        }
        guard let (ids, total) = try matches(group, query, hidden: hidden, offset: offset, limit: limit, db), total > 0 else { return nil }
        var result = SearchGroupResult(group: group, total: total, offset: offset)
        switch group {
        case .artists: result.artists = try fetch(ids, artistSelect + " WHERE artist.id IN", db).map(artist)
        case .albums: result.albums = try fetch(ids, albumSelect + " WHERE album.id IN", db, suffix: " GROUP BY album.id").map(album)
        case .tracks: result.tracks = try fetch(ids, trackSelect + " WHERE track.id IN", db).map(track)
        case .playlists: result.playlists = try fetch(ids, playlistSelect + " WHERE playlist.id IN", db).map(playlist)
        case .lyrics: result.lyrics = try lyricsHits(ids, query, db)
        case .stations: break
        }
        return result
    }

    /// The ids of one page of `group`'s matches, in order, and the number of matches; nil when the
    /// query's filters do not apply to the group.
    private static func matches(_ group: SearchGroup, _ query: SearchQuery, hidden: Hidden, offset: Int, limit: Int,
                                _ db: Database) throws -> ([Int64], Int)? {
        let plan = plan(group)
        var match: [String] = []
        if let words = SearchExpression.all(query.words) { match.append(words) }
        var fieldWords: [(column: Int, words: [String])] = []
        for (field, values) in query.fields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where field != .genre {
            guard let column = plan.columns[field] else { return nil }
            if let expr = SearchExpression.all(values, column: column) { match.append(expr) }
            if let index = plan.ranked.firstIndex(of: column) { fieldWords.append((index, values)) }
        }
        let ranking = plan.ranked.isEmpty ? nil : SearchRanking(words: query.words, fields: fieldWords)
        // Exclusions: words anywhere, and `^field:x` in that field's column (a group without the column keeps all).
        var exclusions: [String] = []
        if let words = SearchExpression.any(query.excluded) { exclusions.append(words) }
        for (field, values) in query.excludedFields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where field != .genre {
            guard let column = plan.columns[field] else { continue }
            exclusions += values.compactMap(SearchExpression.term).map { "\(column) : \($0)" }
        }
        let excludedExpression = exclusions.isEmpty ? nil : exclusions.joined(separator: " OR ")
        if !match.isEmpty, query.fields[.genre] == nil, query.excludedFields[.genre] == nil, query.year == nil, query.added == nil,
           query.sort == nil {
            return try indexOnly(plan, match: match.joined(separator: " AND "), rowidFilter: plan.rowidFilter(hidden),
                                 excluded: excludedExpression, ranking: ranking, offset: offset, limit: limit, db)
        }
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if let base = plan.baseFilter { conditions.append(base) }
        if let genres = query.fields[.genre] {
            guard let column = plan.genre else { return nil }
            for g in genres {
                conditions.append("\(column) LIKE ? ESCAPE '\\'")
                arguments.append(Self.containsPattern(g))
            }
        }
        if let genres = query.excludedFields[.genre], let column = plan.genre {
            for g in genres {
                conditions.append("(\(column) IS NULL OR \(column) NOT LIKE ? ESCAPE '\\')")
                arguments.append(Self.containsPattern(g))
            }
        }
        for (range, column) in [(query.year.map { ($0.lower.map(Double.init), $0.upper.map(Double.init)) }, plan.year),
                                (query.added.map { ($0.lower, $0.upper) }, plan.added)] {
            guard let range else { continue }
            guard let column else { return nil }
            if let lower = range.0 { conditions.append("\(column) >= ?"); arguments.append(lower) }
            if let upper = range.1 { conditions.append("\(column) <= ?"); arguments.append(upper) }
        }
        if let excluded = excludedExpression {
            conditions.append("\(plan.idColumn) NOT IN (SELECT rowid FROM \(plan.fts) WHERE \(plan.fts) MATCH ?)")
            arguments.append(excluded)
        }
        let ranked = !match.isEmpty
        // Nothing to narrow by (only punctuation was typed): no matches rather than everything.
        guard ranked || conditions.count > (plan.baseFilter == nil ? 0 : 1) else { return ([], 0) }
        if ranked {
            conditions.insert("\(plan.fts) MATCH ?", at: 0)
            arguments.insert(match.joined(separator: " AND "), at: 0)
        }
        let from = ranked ? "\(plan.from) JOIN \(plan.fts) ON \(plan.fts).rowid = \(plan.idColumn)" : plan.from
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if ranked, query.sort == nil {
            return try rankedPage(plan, ranking: ranking, id: plan.idColumn, rowid: "\(plan.fts).rowid", from: from,
                                  filter: filter, arguments: arguments, offset: offset, limit: limit, db)
        }
        let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM \(from)\(filter)"),
                                     arguments: StatementArguments(arguments)) ?? 0
        guard total > offset, limit > 0 else { return ([], total) }
        let order = query.sort.flatMap(plan.order) ?? plan.idColumn
        let page = "SELECT \(plan.idColumn) FROM \(from)\(filter) ORDER BY \(order) LIMIT ? OFFSET ?"
        let ids = try Int64.fetchAll(db.cachedStatement(sql: page),
                                     arguments: StatementArguments(arguments + [limit, offset]))
        return (ids, total)
    }

    /// What the index holds that search leaves out: the hidden albums (the streams album, catalog previews) and the
    /// artists known only from them. A few rows, read once per search through the album identity index; the filters
    /// they used to be (a join of every track to its album, three correlated lookups per artist) ran per group and
    /// per query over the whole library.
    struct Hidden {
        var albums: [Int64]
        var artists: [Int64]

        static func load(_ db: Database) throws -> Hidden {
            let albums = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT id FROM album WHERE identity = ? UNION SELECT id FROM album WHERE identity GLOB ?
                """), arguments: [Station.albumIdentity, CatalogPreview.identityPrefix + "*"])
            guard !albums.isEmpty else { return Hidden(albums: [], artists: []) }
            // The ids as one JSON array (`idList`): the cached statement's text stays the same as hidden albums come.
            let artists = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT artist.id FROM artist
                WHERE artist.id IN (SELECT artist_id FROM album WHERE id IN (SELECT value FROM json_each(?)))
                AND \(hiddenOnlyArtist)
                """), arguments: [idList(albums)])
            return Hidden(albums: albums, artists: artists)
        }

        static func list(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ",") }
    }

    /// A LIKE pattern for "contains `text`", with LIKE's own characters escaped (`ESCAPE '\\'`).
    static func containsPattern(_ text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// Above this many matches a group is listed in library order instead of ranked: reading and ranking tens of
    /// thousands of rows for a two-letter prefix costs milliseconds and says little (Benchmarks/README.md, search.sh);
    /// the next letter typed brings ranking back. Also the most rows a search reads to rank, per group.
    static let rankLimit = 1_000

    /// Words (and exclusions) only: count and page on the index alone, which holds exactly one row per item,
    /// so the base tables are not joined at all.
    private static func indexOnly(_ plan: GroupPlan, match: String, rowidFilter: String?, excluded: String?,
                                  ranking: SearchRanking?, offset: Int, limit: Int, _ db: Database) throws -> ([Int64], Int) {
        var conditions = ["\(plan.fts) MATCH ?"]
        var arguments: [any DatabaseValueConvertible] = [match]
        if let rowidFilter { conditions.append(rowidFilter) }
        if let excluded {
            conditions.append("rowid NOT IN (SELECT rowid FROM \(plan.fts) WHERE \(plan.fts) MATCH ?)")
            arguments.append(excluded)
        }
        return try rankedPage(plan, ranking: ranking, id: "rowid", rowid: "rowid", from: plan.fts,
                              filter: " WHERE " + conditions.joined(separator: " AND "), arguments: arguments,
                              offset: offset, limit: limit, db)
    }

    /// One page of the matches `SELECT id FROM from filter` selects, best first, and their number.
    ///
    /// Several terms, up to `rankLimit` matches: one pass over them (the MATCH runs once), then their indexed text read
    /// by rowid and ranked by `SearchRanking`. More: the first pass stops at `rankLimit + 1`, `COUNT(*)` gives the
    /// total, and the page is in library order. One term (and lyrics): `COUNT(*)`, then FTS5's bm25 (`ORDER BY rank`)
    /// up to `rankLimit` matches, library order above.
    private static func rankedPage(_ plan: GroupPlan, ranking: SearchRanking?, id: String, rowid: String, from: String,
                                   filter: String, arguments: [any DatabaseValueConvertible], offset: Int, limit: Int,
                                   _ db: Database) throws -> ([Int64], Int) {
        let select = "SELECT \(id) FROM \(from)\(filter)"
        func count() throws -> Int {
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM \(from)\(filter)"),
                             arguments: StatementArguments(arguments)) ?? 0
        }
        func libraryOrder(_ order: String) throws -> [Int64] {
            try Int64.fetchAll(db.cachedStatement(sql: "\(select) ORDER BY \(order) LIMIT ? OFFSET ?"),
                               arguments: StatementArguments(arguments + [limit, offset]))
        }
        // One term, or lyrics: FTS5 ranks (see `SearchRanking` for why several terms are ranked here instead).
        guard let ranking, ranking.terms > 1 else {
            let total = try count()
            guard total > offset, limit > 0 else { return ([], total) }
            return (try libraryOrder(total <= rankLimit ? "\(plan.fts).rank, \(rowid)" : rowid), total)
        }
        // ORDER BY the index's rowid is the order FTS5 returns matches in: no sorting.
        let first = try Int64.fetchAll(db.cachedStatement(sql: "\(select) ORDER BY \(rowid) LIMIT ?"),
                                       arguments: StatementArguments(arguments + [rankLimit + 1]))
        if first.count <= rankLimit {
            guard first.count > offset, limit > 0 else { return ([], first.count) }
            let ordered = try rank(first, plan, ranking, db)
            return (Array(ordered.dropFirst(offset).prefix(limit)), first.count)
        }
        // Counting from where the first pass stopped (`rowid > ?`) is slower in FTS5 than counting them all again.
        let total = try count()
        guard total > offset, limit > 0 else { return ([], total) }
        if offset + limit <= first.count { return (Array(first[offset..<(offset + limit)]), total) }
        return (try libraryOrder(rowid), total)
    }

    /// `ids` best first: their ranked columns read by rowid from the index's own copy of its text (FTS5's
    /// `<table>_content`: `id`, then `c0`, `c1`, … in column order; a primary-key lookup each, half the cost of FTS5's
    /// own rowid lookup) and scored as they are read, without copying the text. The ids go in as one JSON array
    /// (`idList`).
    private static func rank(_ ids: [Int64], _ plan: GroupPlan, _ ranking: SearchRanking, _ db: Database) throws -> [Int64] {
        let columns = plan.ranked.indices.map { "c\($0)" }.joined(separator: ", ")
        let statement = try db.cachedStatement(sql: """
            SELECT id, \(columns) FROM \(plan.fts)_content WHERE id IN (SELECT value FROM json_each(?))
            """)
        let rows = try Row.fetchCursor(statement, arguments: [idList(ids)])
        var ranker = SearchRanking.Ranker(ranking, capacity: ids.count)
        while let row = try rows.next() {
            for column in plan.ranked.indices {
                try row.withUnsafeData(atIndex: column + 1) { text in text?.withUnsafeBytes { ranker.column(column, $0) } }
            }
            ranker.end(id: row[0])
        }
        return ranker.ordered()
    }

    /// `ids` as one JSON array, for `IN (SELECT value FROM json_each(?))`: the statement's text is then the same whatever
    /// their number, so it is prepared once per connection. Preparing the result joins anew for each list (and GRDB
    /// working out each one's tables) was a quarter of a search's time at 100,000 tracks (Benchmarks/README.md).
    static func idList(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    /// Rows for `ids` in the order given (`sql` ends in `WHERE … IN`).
    static func fetch(_ ids: [Int64], _ sql: String, _ db: Database, suffix: String = "") throws -> [Row] {
        guard !ids.isEmpty else { return [] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: "\(sql) (SELECT value FROM json_each(?))\(suffix)"),
                                    arguments: [idList(ids)])
        let byID = Dictionary(rows.map { (($0["id"] as Int64?) ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
        return ids.compactMap { byID[$0] }
    }

    private static func lyricsHits(_ ids: [Int64], _ query: SearchQuery, _ db: Database) throws -> [LyricsHit] {
        let tracks = try fetch(ids, trackSelect + " WHERE track.id IN", db).map(track)
        var snippets: [Int64: String] = [:]
        if let match = SearchExpression.all(query.words) {
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            for row in try Row.fetchAll(db, sql: """
                SELECT rowid, snippet(lyrics_fts, 0, '[', ']', '…', 10) AS s FROM lyrics_fts
                WHERE lyrics_fts MATCH ? AND rowid IN (\(marks))
                """, arguments: StatementArguments([match] + ids.map { $0 as any DatabaseValueConvertible })) {
                snippets[row["rowid"]] = (row["s"] as String).replacingOccurrences(of: "\n", with: " / ")
            }
        }
        return tracks.map { LyricsHit(track: $0, snippet: snippets[$0.id] ?? "") }
    }
}
