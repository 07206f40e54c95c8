import CrateDomain
import Foundation
import Testing

/// 2026-03-01 12:00:00 UTC: the "now" relative dates are counted from.
private let now = Date(timeIntervalSince1970: 1_772_366_400)
private let day: Double = 86_400

/// Seconds since 1970 of a UTC calendar day.
private func utc(_ year: Int, _ month: Int, _ day: Int) throws -> Double {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
    return try #require(calendar.date(from: DateComponents(year: year, month: month, day: day))).timeIntervalSince1970
}

@Suite struct SearchQueryParsingTests {
    @Test func freeWordsAreKeptInOrder() throws {
        let q = try SearchQuery.parse("  Hey\tJude   beatles ", now: now)
        #expect(q.words == ["Hey", "Jude", "beatles"])
        #expect(q.excluded.isEmpty && q.fields.isEmpty && q.year == nil && q.added == nil && q.sort == nil)
        #expect(!q.hasFilters && !q.isEmpty)
    }

    @Test func emptyTextIsAnEmptyQuery() throws {
        #expect(try SearchQuery.parse("", now: now).isEmpty)
        #expect(try SearchQuery.parse("   ", now: now).isEmpty)
    }

    @Test func textFieldsCollectTheirValues() throws {
        let q = try SearchQuery.parse("artist:beat album:abbey title:come genre:rock ARTIST:Lennon sun", now: now)
        #expect(q.fields[.artist] == ["beat", "Lennon"])
        #expect(q.fields[.album] == ["abbey"])
        #expect(q.fields[.title] == ["come"])
        #expect(q.fields[.genre] == ["rock"])
        #expect(q.words == ["sun"])
        #expect(q.hasFilters && !q.isEmpty)
    }

    @Test(arguments: [
        ("year:1990..1999", 1990, 1999),
        ("year:1997", 1997, 1997),
        ("year:2000..", 2000, nil),
        ("year:..1999", nil, 1999),
    ] as [(String, Int?, Int?)])
    func yearRanges(text: String, lower: Int?, upper: Int?) throws {
        let q = try SearchQuery.parse(text, now: now)
        #expect(q.year == SearchQuery.Range(lower: lower, upper: upper))
        #expect(q.words.isEmpty && q.hasFilters)
    }

    @Test func relativeAddedDatesCountBackFromNow() throws {
        let t = now.timeIntervalSince1970
        #expect(try SearchQuery.parse("added:-30d..", now: now).added == SearchQuery.Range(lower: t - 30 * day, upper: nil))
        #expect(try SearchQuery.parse("added:-2w..", now: now).added?.lower == t - 14 * day)
        #expect(try SearchQuery.parse("added:-6m..", now: now).added?.lower == t - 180 * day)
        #expect(try SearchQuery.parse("added:-1y..", now: now).added?.lower == t - 365 * day)
        #expect(try SearchQuery.parse("added:-0d..", now: now).added?.lower == t)
        // A relative upper end is that instant, not the end of its day.
        #expect(try SearchQuery.parse("added:-90d..-30d", now: now).added
                == SearchQuery.Range(lower: t - 90 * day, upper: t - 30 * day))
        #expect(try SearchQuery.parse("added:..-7d", now: now).added == SearchQuery.Range(lower: nil, upper: t - 7 * day))
    }

    @Test func relativeDatesFollowTheInjectedNow() throws {
        let later = now.addingTimeInterval(10 * day)
        let a = try SearchQuery.parse("added:-30d..", now: now).added?.lower
        let b = try SearchQuery.parse("added:-30d..", now: later).added?.lower
        #expect(a.map { $0 + 10 * day } == b)
    }

    /// `text`'s added range must start at `first` and end inside the last second before `next`.
    private func expectPeriod(_ text: String, from first: Double, before next: Double?) throws {
        let range = try #require(try SearchQuery.parse(text, now: now).added)
        #expect(range.lower == first, "\(text)")
        if let next {
            let upper = try #require(range.upper, "\(text)")
            #expect(upper < next && upper > next - 1, "\(text): \(upper) should be just before \(next)")
        } else {
            #expect(range.upper == nil, "\(text)")
        }
    }

    @Test func absoluteAddedDatesCoverWholeDaysMonthsAndYears() throws {
        // Inclusive: the whole last day, month or year counts.
        try expectPeriod("added:2025-06-01..2025-06-30", from: try utc(2025, 6, 1), before: try utc(2025, 7, 1))
        try expectPeriod("added:2025-06-15", from: try utc(2025, 6, 15), before: try utc(2025, 6, 16))
        try expectPeriod("added:2025-02", from: try utc(2025, 2, 1), before: try utc(2025, 3, 1))
        try expectPeriod("added:2024", from: try utc(2024, 1, 1), before: try utc(2025, 1, 1))
        try expectPeriod("added:2024..2025-06", from: try utc(2024, 1, 1), before: try utc(2025, 7, 1))
        try expectPeriod("added:2026-01-01..", from: try utc(2026, 1, 1), before: nil)
        let upperOnly = try #require(try SearchQuery.parse("added:..2025-12-31", now: now).added)
        #expect(upperOnly.lower == nil)
        #expect(try #require(upperOnly.upper) > (try utc(2026, 1, 1)) - 1)
    }

    @Test func caretExcludesAWord() throws {
        let q = try SearchQuery.parse("beatles ^live ^Demo", now: now)
        #expect(q.words == ["beatles"])
        #expect(q.excluded == ["live", "Demo"])
        #expect(!q.isEmpty && !q.hasFilters)
        // A caret alone is just a word.
        #expect(try SearchQuery.parse("^", now: now).words == ["^"])
        #expect(try SearchQuery.parse("^", now: now).excluded.isEmpty)
    }

    @Test func onlyATrailingTermSorts() throws {
        let desc = try SearchQuery.parse("beatles year-", now: now)
        #expect(desc.sort == SearchQuery.Sort(key: .year, order: .descending))
        #expect(desc.words == ["beatles"])
        let asc = try SearchQuery.parse("artist:beat title+", now: now)
        #expect(asc.sort == SearchQuery.Sort(key: .title, order: .ascending))
        for key in SearchQuery.SortKey.allCases {
            #expect(try SearchQuery.parse("x \(key.rawValue)-", now: now).sort == SearchQuery.Sort(key: key, order: .descending))
        }
        // Not last: a word.
        let early = try SearchQuery.parse("year- beatles", now: now)
        #expect(early.sort == nil && early.words == ["year-", "beatles"])
        // Not a sort key: a word.
        let word = try SearchQuery.parse("a-ha blink-", now: now)
        #expect(word.sort == nil && word.words == ["a-ha", "blink-"])
        // A sort alone narrows nothing.
        #expect(try SearchQuery.parse("year-", now: now).isEmpty)
    }

    @Test(arguments: ["ac:dc", "AC:DC", "10:15", "Re:Union", ":abba", "live:"])
    func unknownFieldNamesAreKeptAsWords(text: String) throws {
        let q = try SearchQuery.parse(text, now: now)
        #expect(q.words == [text])
        #expect(q.fields.isEmpty && !q.hasFilters)
    }

    @Test func badValuesAreClearErrors() throws {
        let notAYear = #expect(throws: SearchQueryError.badValue(field: "year", value: "abc")) {
            try SearchQuery.parse("beatles year:abc", now: now)
        }
        let yearText = notAYear.map(String.init(describing:)) ?? ""
        #expect(yearText.contains("'abc' is not a year") && yearText.contains("year:1990..1999"))

        let empty = #expect(throws: SearchQueryError.emptyValue(field: "year")) { try SearchQuery.parse("year:", now: now) }
        #expect(empty.map(String.init(describing:))?.contains("'year:' needs a value") == true)

        #expect(throws: SearchQueryError.emptyValue(field: "artist")) { try SearchQuery.parse("artist:", now: now) }
        #expect(throws: SearchQueryError.emptyValue(field: "added")) { try SearchQuery.parse("added:", now: now) }
        #expect(throws: SearchQueryError.badValue(field: "year", value: "..")) { try SearchQuery.parse("year:..", now: now) }
        #expect(throws: SearchQueryError.badValue(field: "year", value: "1990..1999..2000")) {
            try SearchQuery.parse("year:1990..1999..2000", now: now)
        }
        #expect(throws: SearchQueryError.badValue(field: "year", value: "0")) { try SearchQuery.parse("year:0", now: now) }
        #expect(throws: SearchQueryError.badValue(field: "year", value: "199x")) { try SearchQuery.parse("year:1990..199x", now: now) }

        let badDate = #expect(throws: SearchQueryError.badValue(field: "added", value: "yesterday")) {
            try SearchQuery.parse("added:yesterday..", now: now)
        }
        let dateText = badDate.map(String.init(describing:)) ?? ""
        #expect(dateText.contains("'yesterday' is not a date") && dateText.contains("added:-30d.."))
        #expect(throws: SearchQueryError.badValue(field: "added", value: "-30x")) { try SearchQuery.parse("added:-30x..", now: now) }
    }
}

@Suite struct SortNameTests {
    @Test(arguments: [
        ("The Beatles", "beatles"),
        ("the beatles", "beatles"),
        ("THE BEATLES", "beatles"),
        ("A Tribe Called Quest", "tribe called quest"),
        ("An Emotional Fish", "emotional fish"),
        ("  The Cure ", "cure"),
        ("The  Cure", "cure"),
        ("Theatre of Hate", "theatre of hate"),
        ("Anathema", "anathema"),
        ("a-ha", "a-ha"),
        ("Björk", "bjork"),
        ("ÉDITH PIAF", "edith piaf"),
        ("The Émigrés", "emigres"),
        ("The The", "the"),
    ])
    func leadingArticlesAreIgnoredAndCaseAndAccentsFolded(name: String, key: String) {
        #expect(SortName.key(name) == key)
    }

    @Test(arguments: ["The", "A", "An", "the", "The "])
    func anArticleAloneStays(name: String) {
        #expect(SortName.key(name) == name.trimmingCharacters(in: .whitespaces).lowercased())
    }

    @Test func theSortTagWins() {
        #expect(SortName.key("David Bowie", sortTag: "Bowie, David") == "bowie, david")
        #expect(SortName.key("The Beatles", sortTag: "Beatles, The") == "beatles, the")
        #expect(SortName.key("Sigur Rós", sortTag: "Sigur RÓS") == "sigur ros")
        // An empty tag is no tag.
        #expect(SortName.key("The Beatles", sortTag: "  ") == "beatles")
        #expect(SortName.key("The Beatles", sortTag: "") == "beatles")
    }

    @Test func artistsSortBetweenTheRightNeighbours() {
        let names = ["Cream", "The Beatles", "Abba", "David Bowie"]
        let tags: [String: String] = ["David Bowie": "Bowie, David"]
        let sorted = names.sorted { SortName.key($0, sortTag: tags[$0]) < SortName.key($1, sortTag: tags[$1]) }
        #expect(sorted == ["Abba", "The Beatles", "David Bowie", "Cream"])
    }
}

@Suite struct LyricsAndSortTagMappingTests {
    @Test func id3UnsyncedLyricsAreKeptWithTheirLines() {
        var m = TagMapper()
        m.id3Frame("USLT", "Yesterday\nall my troubles seemed so far away\n\n")
        m.id3Frame("USLT", "second frame ignored")
        #expect(m.tags.lyrics == "Yesterday\nall my troubles seemed so far away")

        var v22 = TagMapper()
        v22.id3Frame("ULT", "two-point-two lyrics")
        #expect(v22.tags.lyrics == "two-point-two lyrics")
    }

    @Test func id3SortFramesMapToSortNames() {
        var m = TagMapper()
        m.id3Frame("TPE1", "The Beatles")
        m.id3Frame("TSOP", "Beatles, The")
        m.id3Frame("TSO2", "Beatles, The (album)")
        #expect(m.tags.artistSort == "Beatles, The")
        #expect(m.tags.albumArtistSort == "Beatles, The (album)")

        var v22 = TagMapper()
        v22.id3Frame("TSP", "Bowie, David")
        #expect(v22.tags.artistSort == "Bowie, David")

        var txxx = TagMapper()
        txxx.id3Frame("TXXX", "Bowie, David", description: "ALBUMARTISTSORT")
        #expect(txxx.tags.albumArtistSort == "Bowie, David")
    }

    @Test(arguments: ["LYRICS", "UNSYNCEDLYRICS", "UNSYNCED LYRICS", "lyrics", "UnsyncedLyrics"])
    func vorbisLyricsFields(key: String) {
        var m = TagMapper()
        m.vorbisComment("\(key)=line one\nline = two\n")
        #expect(m.tags.lyrics == "line one\nline = two")
    }

    @Test func vorbisSortFields() {
        var m = TagMapper()
        m.vorbisComment("ARTISTSORT=Beatles, The")
        m.vorbisComment("albumartistsort=Bowie, David")
        m.vorbisComment("ARTISTSORT=later value ignored")
        m.vorbisComment("ALBUMARTISTSORT=   ")
        #expect(m.tags.artistSort == "Beatles, The")
        #expect(m.tags.albumArtistSort == "Bowie, David")
    }

    @Test func emptyLyricsAreNoLyrics() {
        var m = TagMapper()
        m.vorbisComment("LYRICS= \n ")
        m.id3Frame("USLT", "")
        #expect(m.tags.lyrics == nil)
    }
}
