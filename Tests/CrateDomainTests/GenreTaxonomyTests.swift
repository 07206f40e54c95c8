import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// Every genre id the taxonomy uses, with its name in the fact sheet (apple-music-api.md 3.4): the top-charts
/// list for `us` and the legacy iTunes tree. Typed in from the sheet, so a typo in the taxonomy shows up here.
private let sheetGenres: [String: String] = [
    // Top-charts genres (us)
    "21": "Rock", "20": "Alternative", "1153": "Metal", "14": "Pop", "51": "K-Pop", "18": "Hip-Hop/Rap",
    "7": "Electronic", "17": "Dance", "15": "R&B/Soul", "11": "Jazz", "6": "Country", "5": "Classical",
    "12": "Latino", "2": "Blues", "10": "Singer/Songwriter",
    // Other top level
    "13": "New Age", "27": "J-Pop", "1289": "Folk", "1290": "Orchestral",
    // [20 Alternative]
    "1001": "College Rock", "1003": "Grunge", "1004": "Indie Rock", "1005": "New Wave", "1006": "Punk",
    // [2 Blues]
    "1007": "Chicago Blues", "1009": "Classic Blues", "1010": "Contemporary Blues", "1011": "Country Blues",
    "1012": "Delta Blues", "1013": "Electric Blues", "1210": "Acoustic Blues",
    // [5 Classical]
    "9": "Opera", "1028": "Opera", "1017": "Avant-Garde", "1018": "Baroque Era", "1020": "Chant",
    "1023": "Early Music", "1024": "Impressionist", "1025": "Medieval Era", "1026": "Minimalism",
    "1027": "Modern Era", "1029": "Orchestral", "1030": "Renaissance", "1031": "Romantic Era",
    // [6 Country]
    "1033": "Alternative Country", "1034": "Americana", "1035": "Bluegrass", "1036": "Contemporary Bluegrass",
    "1037": "Contemporary Country", "1039": "Honky Tonk", "1040": "Outlaw Country", "1041": "Traditional Bluegrass",
    "1042": "Traditional Country", "1043": "Urban Cowboy",
    // [17 Dance]
    "1044": "Breakbeat", "1046": "Garage", "1048": "House", "1049": "Jungle/Drum'n'bass", "1050": "Techno",
    "1051": "Trance",
    // [7 Electronic]
    "1056": "Ambient", "1057": "Downtempo", "1060": "IDM/Experimental", "1061": "Industrial",
    // [10 Singer/Songwriter]
    "1062": "Alternative Folk", "1063": "Contemporary Folk", "1064": "Contemporary Singer/Songwriter",
    "1065": "Folk-Rock", "1066": "New Acoustic", "1067": "Traditional Folk",
    // [18 Hip-Hop/Rap]
    "1068": "Alternative Rap", "1069": "Dirty South", "1070": "East Coast Rap", "1071": "Gangsta Rap",
    "1072": "Hardcore Rap", "1074": "Latin Rap", "1075": "Old School Rap", "1077": "Underground Rap",
    "1078": "West Coast Rap",
    // [22 Christian & Gospel]
    "1100": "Contemporary Gospel", "1101": "Gospel", "1105": "Traditional Gospel",
    // [11 Jazz]
    "1052": "Big Band", "1053": "Bop", "1108": "Crossover Jazz", "1110": "Fusion", "1114": "Smooth Jazz",
    "1175": "Vocal Jazz", "1207": "Hard Bop", "1209": "Cool",
    // [12 Latino]
    "1117": "Latin Pop", "1119": "Latin Urban", "1123": "Regional Mexicano", "1124": "Salsa y Tropical",
    // [14 Pop]
    "1131": "Adult Contemporary", "1132": "Britpop", "1133": "Pop/Rock", "1134": "Soft Rock",
    // [15 R&B/Soul]
    "1136": "Contemporary R&B", "1137": "Disco", "1138": "Doo Wop", "1139": "Funk", "1140": "Motown",
    "1141": "Neo-Soul", "1142": "Quiet Storm", "1143": "Soul",
    // [21 Rock]
    "1145": "American Trad Rock", "1146": "Arena Rock", "1147": "Blues-Rock", "1149": "Death Metal/Black Metal",
    "1150": "Glam Rock", "1151": "Hair Metal", "1152": "Hard Rock", "1155": "Prog-Rock/Art Rock",
    "1156": "Psychedelic", "1157": "Rock & Roll", "1161": "Southern Rock",
    // [23 Vocal], [25 Easy Listening], [19 World], [1122 Brazilian]
    "1173": "Standards", "1055": "Swing", "1186": "Japanese Pop", "1296": "Tango",
    "1221": "Bossa Nova", "1225": "MPB", "1226": "Pagode", "1227": "Samba",
]

/// Apple's documented top-charts genres for `us`: the only ids a super-genre charts.
private let usTopChartIDs: Set<String> = [
    "34", "20", "2", "4", "22", "5", "3", "6", "17", "7", "50", "18", "11", "51", "12", "1153", "31", "14", "15",
    "24", "21", "10", "16", "19",
]

@Suite struct GenreTaxonomyTests {
    let genres = GenreTaxonomy.superGenres

    @Test func nineSuperGenresInTheProductOrder() {
        #expect(genres.map(\.name) == ["Rock", "Pop", "Hip-Hop", "Electronic", "R&B", "Jazz", "Country", "Classical",
                                       "Latin"])
        #expect(genres.map(\.id) == ["rock", "pop", "hiphop", "electronic", "rnb", "jazz", "country", "classical",
                                     "latin"])
    }

    @Test func superGenresChartTheirTopChartIDs() {
        let charts = Dictionary(uniqueKeysWithValues: genres.map { ($0.id, $0.chartGenreIDs) })
        #expect(charts == ["rock": ["21", "20", "1153"], "pop": ["14"], "hiphop": ["18"], "electronic": ["7", "17"],
                           "rnb": ["15"], "jazz": ["11"], "country": ["6"], "classical": ["5"], "latin": ["12"]])
        #expect(Set(genres.flatMap(\.chartGenreIDs)).isSubset(of: usTopChartIDs))
    }

    @Test func slugsAreUniqueAndSubcategorySlugsNameTheirSuperGenre() {
        let subs = genres.flatMap(\.subcategories)
        #expect(Set(genres.map(\.id)).count == genres.count)
        #expect(Set(subs.map(\.id)).count == subs.count)
        for genre in genres {
            for sub in genre.subcategories {
                #expect(sub.id.hasPrefix(genre.id + "."), "\(sub.id)")
            }
        }
    }

    @Test func aboutFiftySubcategoriesEachWithIDsAndATerm() {
        let subs = genres.flatMap(\.subcategories)
        #expect((40...60).contains(subs.count))
        for genre in genres {
            #expect(genre.subcategories.count >= 5, "\(genre.name)")
        }
        for sub in subs {
            #expect(!sub.genreIDs.isEmpty, "\(sub.id)")
            #expect(!sub.searchTerm.trimmingCharacters(in: .whitespaces).isEmpty, "\(sub.id)")
            #expect(Set(sub.genreIDs).count == sub.genreIDs.count, "\(sub.id)")
        }
    }

    /// Latin Jazz was left out for this reason (Apple has it as 1111 under Jazz and 1115 under Latino).
    @Test func noGenreIDBelongsToTwoSuperGenres() {
        var owner: [String: String] = [:]
        for genre in genres {
            for id in Set(genre.chartGenreIDs + genre.subcategories.flatMap(\.genreIDs)) {
                #expect(owner[id] == nil, "\(id) is under \(owner[id] ?? "") and \(genre.id)")
                owner[id] = genre.id
            }
        }
    }

    @Test func genreIDsAreNumericAndFromTheFactSheet() {
        let used = GenreTaxonomy.allGenreIDs
        for id in used {
            #expect(!id.isEmpty && id.allSatisfy(\.isASCII) && id.allSatisfy(\.isNumber), "\(id)")
        }
        #expect(used.subtracting(sheetGenres.keys).isEmpty, "not in the sheet: \(used.subtracting(sheetGenres.keys))")
        #expect(Set(sheetGenres.keys).subtracting(used).isEmpty)
    }

    /// No name or alias may point at two places, or `classify` would depend on the order of the data.
    @Test func everyNameAndAliasHasOneOwner() {
        var owner: [String: String] = [:]
        for genre in genres {
            for name in [genre.name] + genre.aliases {
                let key = GenreTaxonomy.matchKey(name)
                #expect(!key.isEmpty)
                #expect(owner[key] == nil || owner[key] == genre.id, "\(name): \(owner[key] ?? "") and \(genre.id)")
                owner[key] = genre.id
            }
            for sub in genre.subcategories {
                for name in [sub.name] + sub.aliases {
                    let key = GenreTaxonomy.matchKey(name)
                    #expect(owner[key] == nil || owner[key] == sub.id, "\(name): \(owner[key] ?? "") and \(sub.id)")
                    owner[key] = sub.id
                }
            }
        }
    }

    @Test func lookupsBySlugNameOrAlias() throws {
        #expect(GenreTaxonomy.superGenre("hiphop")?.name == "Hip-Hop")
        #expect(GenreTaxonomy.superGenre("Hip Hop")?.id == "hiphop")
        #expect(GenreTaxonomy.superGenre("r&b")?.id == "rnb")
        #expect(GenreTaxonomy.superGenre("Polka") == nil)
        let rock = try #require(GenreTaxonomy.superGenre("Rock"))
        #expect(GenreTaxonomy.subcategory("rock.indie")?.name == "Indie Rock")
        #expect(GenreTaxonomy.subcategory("indie rock", in: rock)?.id == "rock.indie")
        #expect(GenreTaxonomy.subcategory("Alternative", in: rock)?.id == "rock.indie")
        #expect(GenreTaxonomy.subcategory("House", in: rock) == nil)
        #expect(GenreTaxonomy.subcategory("House")?.id == "electronic.house")
        let selection = try #require(GenreSelection(superGenre: "rock", subcategories: ["Punk", "rock.indie", "punk"]))
        #expect(selection.subcategories.map(\.id) == ["rock.punk", "rock.indie"])
        #expect(GenreSelection(superGenre: "rock", subcategories: ["House"]) == nil)
    }

    @Test(arguments: [
        ("Indie Rock", "rock", "rock.indie"), ("indie-rock", "rock", "rock.indie"), ("Alternative", "rock", "rock.indie"),
        ("Hip Hop", "hiphop", nil), ("Hip-Hop", "hiphop", nil), ("Rap", "hiphop", nil), ("Hip-Hop/Rap", "hiphop", nil),
        ("Gangsta Rap", "hiphop", "hiphop.west-coast"),
        ("Drum & Bass", "electronic", "electronic.drum-and-bass"), ("drum and bass", "electronic", "electronic.drum-and-bass"),
        ("Drum'n'bass", "electronic", "electronic.drum-and-bass"), ("Dubstep", "electronic", "electronic.drum-and-bass"),
        ("Dance", "electronic", nil), ("R&B", "rnb", nil), ("Rhythm & Blues", "rnb", nil), ("R&B/Soul", "rnb", nil),
        ("Soul", "rnb", "rnb.soul"), ("Delta Blues", "rnb", "rnb.blues"), ("Bebop", "jazz", "jazz.bebop"),
        ("BOSSA NOVA", "latin", "latin.bossa-nova"), ("Reggaetón", "latin", "latin.urbano"),
        ("Norteño", "latin", "latin.regional-mexicano"), ("norteno", "latin", "latin.regional-mexicano"),
        ("Latino", "latin", nil), ("Singer/Songwriter", "country", "country.folk"), ("Opera", "classical", "classical.opera"),
        ("Heavy Metal", "rock", "rock.metal"), ("K-Pop", "pop", "pop.kpop"), ("kpop", "pop", "pop.kpop"),
        ("Rock/Pop", "rock", nil), ("Polka; Jazz", "jazz", nil),
    ] as [(String, String, String?)])
    func classifyTags(tag: String, superID: String, subID: String?) {
        let hit = GenreTaxonomy.classify(tag: tag)
        #expect(hit?.superGenre.id == superID)
        #expect(hit?.subcategory?.id == subID)
    }

    @Test(arguments: ["", "  ", "Polka", "Podcast", "Rockabilly Punk Fusion Thing", "/"])
    func unknownTagsAreNotClassified(tag: String) {
        #expect(GenreTaxonomy.classify(tag: tag) == nil)
    }

    @Test func taxonomyRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(genres)
        #expect(try JSONDecoder().decode([SuperGenre].self, from: data) == genres)
    }
}

private func album(_ id: String) -> Album { catalogAlbum(id) }
private func albums(_ prefix: String, _ count: Int) -> [Album] { catalogAlbums(prefix, count) }
private func ids(_ albums: [Album]) -> [String] { mergeKeys(albums) }

extension GenreTaxonomyTests {
    @Suite struct Merge {
        @Test func unionInterleavesByRank() {
            let merged = GenreMerge.union([[album("a1"), album("a2"), album("a3")], [album("b1"), album("b2")], []])
            #expect(ids(merged) == ["a1", "b1", "a2", "b2", "a3"])
            #expect(GenreMerge.union([]).isEmpty)
        }

        @Test func unionKeepsAnAlbumAtItsFirstPlace() {
            let merged = GenreMerge.union([[album("x"), album("a2"), album("a3")], [album("b1"), album("x"), album("a3")]])
            #expect(ids(merged) == ["x", "b1", "a2", "a3"])
        }

        @Test func identityIsTheExternalIDElseTheIdentity() {
            var local = album("ignored")
            local.externalID = nil
            local.identity = "file:abc"
            var sameCatalogAlbum = album("42")
            sameCatalogAlbum.identity = "applemusic:42/other"
            #expect(GenreMerge.key(local) == "file:abc")
            #expect(GenreMerge.deduplicated([album("42"), local, sameCatalogAlbum, local]).count == 2)
        }

        @Test func fillTopsUpWithAlbumsNotYetThere() {
            let primary = [album("c1"), album("c2"), album("c1")]
            let filled = GenreMerge.fill(primary, from: [album("c2"), album("s1"), album("s2"), album("s3")], upTo: 4)
            #expect(ids(filled) == ["c1", "c2", "s1", "s2"])
            #expect(ids(GenreMerge.fill(albums("c", 5), from: albums("s", 5), upTo: 3)) == ["c0", "c1", "c2"])
            #expect(GenreMerge.fill(albums("c", 2), from: [], upTo: 50).count == 2)
        }

        @Test func pagesOfFiftyUpToTheCap() {
            #expect(GenreMerge.pageSize == 50 && GenreMerge.albumCap == 500)
            let list = albums("a", 120)
            #expect(ids(GenreMerge.page(list, index: 0)) == ids(Array(list[0..<50])))
            #expect(ids(GenreMerge.page(list, index: 2)) == ids(Array(list[100..<120])))
            #expect(GenreMerge.page(list, index: 3).isEmpty)
            #expect(GenreMerge.page(list, index: -1).isEmpty)
            let long = albums("l", 600)
            #expect(ids(GenreMerge.page(long, index: 9)) == ids(Array(long[450..<500])))
            #expect(GenreMerge.page(long, index: 10).isEmpty)
            #expect(GenreMerge.pageRange(9) == 450..<500 && GenreMerge.pageRange(12) == 500..<500)
        }
    }

    /// The fetch plan of one selection, without a network: requests out, answers in.
    @Suite struct Feed {
        let rock = GenreTaxonomy.superGenres[0]
        let country = GenreTaxonomy.superGenre("country")

        private func answer(_ request: GenreFeed.Request, from list: [Album]) -> GenreFeed.Response {
            let end = min(request.offset + request.limit, list.count)
            let items = request.offset < end ? Array(list[request.offset..<end]) : []
            return GenreFeed.Response(request: request, albums: items, hasNext: end < list.count)
        }

        @Test func aSuperGenreAsksEachOfItsChartsForAFullPage() {
            let feed = GenreFeed(GenreSelection(superGenre: rock))
            let requests = feed.requests(toReach: 50, settled: 0)
            #expect(requests.map(\.query) == [.chart(genreID: "21"), .chart(genreID: "20"), .chart(genreID: "1153")])
            #expect(requests.allSatisfy { $0.offset == 0 && $0.limit == 50 })
        }

        @Test func aSubcategoryAsksSearchTwiceForFiftyAlbums() throws {
            let indie = try #require(GenreTaxonomy.subcategory("rock.indie"))
            let feed = GenreFeed(GenreSelection(superGenre: rock, subcategories: [indie]))
            let requests = feed.requests(toReach: 50, settled: 0)
            #expect(requests.map(\.query) == [.search(term: "Indie Rock"), .search(term: "Indie Rock")])
            #expect(requests.map(\.offset) == [0, 25] && requests.allSatisfy { $0.limit == 25 })
        }

        @Test func onlyRoundsEveryOpenListReachedAreSettled() {
            var feed = GenreFeed(GenreSelection(superGenre: rock))
            let requests = feed.requests(toReach: 50, settled: 0)
            let lists = [albums("r", 120), albums("a", 10), albums("m", 200)]
            // Only the first two charts answer: the third is still open at depth 0, so nothing is settled.
            feed.apply(requests.prefix(2).map { answer($0, from: lists[$0.stream]) })
            #expect(feed.settled(cap: 500).albums.isEmpty)
            feed.apply([answer(requests[2], from: lists[2])])
            // "a" ended at 10; "r" and "m" are open at 50: rounds 0..<50 are settled.
            let settled = feed.settled(cap: 500)
            #expect(!settled.complete)
            #expect(ids(settled.albums) == ids(GenreMerge.union(lists.map { Array($0.prefix(50)) })))
            #expect(feed.requests(toReach: 150, settled: settled.albums.count).map(\.offset) == [50, 50])
        }

        @Test func sparseChartsAreFilledFromSearchForTheSuperGenre() throws {
            let country = try #require(country)
            var feed = GenreFeed(GenreSelection(superGenre: country))
            let charts = albums("c", 12)
            let search = [album("c3")] + albums("s", 100)
            feed.apply(feed.requests(toReach: 50, settled: 0).map { answer($0, from: charts) })
            let requests = feed.requests(toReach: 50, settled: feed.settled(cap: 500).albums.count)
            #expect(requests.map(\.query) == [.search(term: "Country"), .search(term: "Country")])
            feed.apply(requests.map { answer($0, from: search) })
            let settled = feed.settled(cap: 500)
            #expect(ids(Array(settled.albums.prefix(50))) == ids(charts + Array(search[1...38])))
        }

        @Test func answersForOffsetsAlreadyStoredAreSkipped() {
            var feed = GenreFeed(GenreSelection(superGenre: rock))
            let requests = feed.requests(toReach: 50, settled: 0)
            let lists = [albums("r", 60), albums("a", 60), albums("m", 60)]
            let responses = requests.map { answer($0, from: lists[$0.stream]) }
            feed.apply(responses)
            feed.apply(responses)
            #expect(feed.settled(cap: 500).albums.count == 150)
        }

        @Test func aListEndsOnAnEmptyPageEvenIfNextSaysMore() {
            var feed = GenreFeed(GenreSelection(superGenre: rock))
            let requests = feed.requests(toReach: 50, settled: 0)
            feed.apply(requests.map { GenreFeed.Response(request: $0, albums: [], hasNext: true) })
            // Every chart ended empty: the search for "Rock" takes over.
            #expect(feed.requests(toReach: 50, settled: 0).map(\.query) == [.search(term: "Rock"), .search(term: "Rock")])
        }
    }
}
