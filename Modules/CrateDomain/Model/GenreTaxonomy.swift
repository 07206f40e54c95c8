import Foundation

/// A top-level genre (Tier 1). Browsed through Apple Music's charts for `chartGenreIDs`.
public struct SuperGenre: Sendable, Hashable, Codable, Identifiable {
    /// A stable slug: "rock", "hiphop".
    public var id: String
    public var name: String
    /// Top-chart genre ids (`/v1/catalog/{sf}/charts?genre=`), most important first.
    public var chartGenreIDs: [String]
    public var subcategories: [GenreSubcategory]
    /// Other spellings of the genre in tags and Apple's `genreNames` ("Rap", "Hip-Hop/Rap").
    public var aliases: [String]

    public init(id: String, name: String, chartGenreIDs: [String], subcategories: [GenreSubcategory],
                aliases: [String] = []) {
        self.id = id
        self.name = name
        self.chartGenreIDs = chartGenreIDs
        self.subcategories = subcategories
        self.aliases = aliases
    }
}

/// A Tier 2 entry. Browsed through catalog search for `searchTerm` (ADR-116: charts for sub-genre ids are
/// mostly empty); `genreIDs` are the legacy iTunes subgenre ids it covers, kept for matching and for the
/// day charts serve them.
public struct GenreSubcategory: Sendable, Hashable, Codable, Identifiable {
    /// "<super id>.<slug>": "rock.indie".
    public var id: String
    public var name: String
    public var genreIDs: [String]
    public var searchTerm: String
    /// Tag spellings and the Apple subgenre names folded into this entry ("Alternative", "Jungle").
    public var aliases: [String]

    public init(id: String, name: String, genreIDs: [String], searchTerm: String, aliases: [String] = []) {
        self.id = id
        self.name = name
        self.genreIDs = genreIDs
        self.searchTerm = searchTerm
        self.aliases = aliases
    }
}

/// The two-tier genre taxonomy: 9 super-genres and their subcategories as static data (ADR-107). The data
/// is at the end of this file, with where each list comes from.
public enum GenreTaxonomy {
    /// In the product's order.
    public static let superGenres: [SuperGenre] = [rock, pop, hipHop, electronic, rnb, jazz, country, classical, latin]

    /// By slug, name or alias, ignoring case, accents and punctuation ("hiphop", "Hip Hop", "Rap").
    public static func superGenre(_ idOrName: String) -> SuperGenre? {
        let key = matchKey(idOrName)
        return superGenres.first { genre in
            genre.id == idOrName.lowercased() || ([genre.name] + genre.aliases).contains { matchKey($0) == key }
        }
    }

    /// By slug ("rock.indie"), name or alias; within `superGenre` when given, else anywhere.
    public static func subcategory(_ idOrName: String, in superGenre: SuperGenre? = nil) -> GenreSubcategory? {
        let key = matchKey(idOrName)
        let candidates = superGenre.map(\.subcategories) ?? superGenres.flatMap(\.subcategories)
        return candidates.first { $0.id == idOrName.lowercased() }
            ?? candidates.first { sub in ([sub.name] + sub.aliases).contains { matchKey($0) == key } }
    }

    /// Every Apple genre id the taxonomy uses (chart and subcategory ids).
    public static var allGenreIDs: Set<String> {
        Set(superGenres.flatMap { $0.chartGenreIDs + $0.subcategories.flatMap(\.genreIDs) })
    }

    /// Maps a local genre tag to the taxonomy: "Indie Rock" → Rock / Indie Rock, "Hip Hop" → Hip-Hop.
    /// Exact match on names and aliases (after `matchKey`); a compound tag ("Rock/Pop", "Jazz; Soul")
    /// falls back to its first part that matches. Unknown genres give nil.
    public static func classify(tag: String) -> (superGenre: SuperGenre, subcategory: GenreSubcategory?)? {
        classifyAll(tag).places.first.map { ($0.superGenre, $0.subcategory) }
    }

    /// The form names are compared in: case and accents folded, "&" read as "and", and everything but
    /// letters and digits dropped, so "Hip-Hop", "hip hop" and "HipHop" meet, as do "R&B" and "R and B".
    public static func matchKey(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .lowercased().replacingOccurrences(of: "&", with: "and")
        return String(folded.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// Every name and alias, matchKey'd, with where it points. The first owner of a key wins; the tests
    /// check that no key has two owners.
    static let tagIndex: [String: Hit] = {
        var index: [String: Hit] = [:]
        for (s, genre) in superGenres.enumerated() {
            for name in [genre.name] + genre.aliases where index[matchKey(name)] == nil {
                index[matchKey(name)] = Hit(superIndex: s, subIndex: nil)
            }
            for (i, sub) in genre.subcategories.enumerated() {
                for name in [sub.name] + sub.aliases where index[matchKey(name)] == nil {
                    index[matchKey(name)] = Hit(superIndex: s, subIndex: i)
                }
            }
        }
        return index
    }()

    struct Hit: Sendable {
        var superIndex: Int
        var subIndex: Int?
    }

    static func resolve(_ hit: Hit) -> (superGenre: SuperGenre, subcategory: GenreSubcategory?) {
        let genre = superGenres[hit.superIndex]
        return (genre, hit.subIndex.map { genre.subcategories[$0] })
    }
}

/// What the user picked: one super-genre and, optionally, several of its subcategories (multi-select, OR).
/// Subcategory order is the order they were picked in; it decides the interleave order of the results.
public struct GenreSelection: Sendable, Hashable, Codable {
    public var superGenre: SuperGenre
    public var subcategories: [GenreSubcategory]

    public init(superGenre: SuperGenre, subcategories: [GenreSubcategory] = []) {
        self.superGenre = superGenre
        self.subcategories = subcategories
    }

    /// From ids or names; nil when the super-genre or any subcategory is unknown.
    public init?(superGenre idOrName: String, subcategories names: [String] = []) {
        guard let genre = GenreTaxonomy.superGenre(idOrName) else { return nil }
        var subs: [GenreSubcategory] = []
        for name in names {
            guard let sub = GenreTaxonomy.subcategory(name, in: genre) else { return nil }
            if !subs.contains(sub) { subs.append(sub) }
        }
        self.init(superGenre: genre, subcategories: subs)
    }
}

// MARK: - The data
//
// Super-genres: the 9 the product settled on (project context, seeds/001: "Rock, Pop, Hip-Hop, Electronic, R&B,
// Jazz, Country, Classical, Latin"), with their ids from Apple's top-charts genre list for `us` (fact sheet 3.4).
// Rock also charts Alternative (20) and Metal (1153), and Electronic charts Dance (17). Apple lists those as peers,
// but the PRD files Indie/Alternative under Rock (7.2), and Metal and Breakbeat/Dance went into Rock and Electronic
// when its 15 proposed groups became 9.
//
// Subcategories: the PRD's example lists (section 2.3) for the surviving groups, plus what the dropped groups
// became: Metal → Rock, Blues → R&B (and Blues Rock → Classic Rock), Breakbeat/Bass → Electronic, Folk/Acoustic
// → Country, Ambient/New Age/Downtempo → Electronic, Reggaeton/Brazilian/Tango → Latin, K-Pop/J-Pop → Pop.
// Super-genre aliases catch tag spellings and sub-styles without a pill of their own ("Teen Pop", "Choral").
// Genre ids are the legacy iTunes subgenre ids of the fact sheet's tree (3.4). Names the PRD lists without an
// Apple id of their own are aliases of the nearest entry that has one (Boom Bap → East Coast Rap 1070,
// Trap → Dirty South 1069, Acid Jazz → Crossover Jazz 1108, Dubstep/UK Garage → Garage 1046). Dropped on
// purpose: Reggae, World, Christian, Latin Jazz (Apple has it twice, 1111 under Jazz and 1115 under Latino;
// listing it would put one id family in two super-genres). No genre id appears under two super-genres.
// Search terms are the labels (ADR-116), spelled out where a bare word would match titles ("House Music").

extension GenreTaxonomy {
    /// A subcategory of `superID`; the search term defaults to the name.
    private static func sub(_ superID: String, _ slug: String, _ name: String, _ ids: [String], term: String? = nil,
                            _ aliases: [String] = []) -> GenreSubcategory {
        GenreSubcategory(id: "\(superID).\(slug)", name: name, genreIDs: ids, searchTerm: term ?? name, aliases: aliases)
    }

    static let rock = SuperGenre(id: "rock", name: "Rock", chartGenreIDs: ["21", "20", "1153"], subcategories: [
        sub("rock", "classic", "Classic Rock", ["1145", "1146", "1157", "1156", "1147", "1161"], [
            "Rock & Roll", "Arena Rock", "American Trad Rock", "Psychedelic", "Psychedelic Rock", "Blues Rock",
            "Southern Rock"]),
        sub("rock", "indie", "Indie Rock", ["1004", "1001"], [
            "Indie", "Alternative", "Alternative Rock", "Alt Rock", "Indie/Alternative", "College Rock"]),
        sub("rock", "punk", "Punk", ["1006"], term: "Punk Rock", ["Punk Rock", "Pop Punk", "Post-Punk", "Hardcore Punk"]),
        sub("rock", "grunge", "Grunge", ["1003"], ["Post-Grunge"]),
        sub("rock", "progressive", "Progressive Rock", ["1155"], ["Prog", "Prog Rock", "Prog-Rock/Art Rock", "Art Rock"]),
        sub("rock", "hard", "Hard Rock", ["1152", "1150"], ["Glam Rock", "Glam"]),
        sub("rock", "metal", "Metal", ["1153", "1149", "1151"], term: "Heavy Metal", [
            "Heavy Metal", "Death Metal", "Black Metal", "Death Metal/Black Metal", "Hair Metal", "Thrash Metal",
            "Metalcore", "Grindcore"]),
    ])

    static let pop = SuperGenre(id: "pop", name: "Pop", chartGenreIDs: ["14"], subcategories: [
        sub("pop", "synth", "Synth-Pop", ["1005"], ["Electropop", "New Wave"]),  // Apple files synth-pop as New Wave
        sub("pop", "pop-rock", "Pop Rock", ["1133", "1132"], ["Pop/Rock", "Power Pop", "Britpop"]),
        sub("pop", "adult-contemporary", "Adult Contemporary", ["1131", "1134"], ["Soft Rock"]),
        sub("pop", "kpop", "K-Pop", ["51"], ["Korean Pop"]),
        sub("pop", "jpop", "J-Pop", ["27", "1186"], ["Japanese Pop"]),
    ], aliases: ["Pop Music", "Teen Pop", "Dance Pop", "Indie Pop", "C-Pop", "Mandopop", "Cantopop"])

    static let hipHop = SuperGenre(id: "hiphop", name: "Hip-Hop", chartGenreIDs: ["18"], subcategories: [
        sub("hiphop", "old-school", "Old School", ["1075"], term: "Old School Hip-Hop", [
            "Old School Rap", "Old School Hip-Hop", "Golden Age Hip-Hop"]),
        sub("hiphop", "boom-bap", "Boom Bap", ["1070"], ["East Coast Rap", "East Coast Hip-Hop"]),
        sub("hiphop", "trap", "Trap", ["1069"], ["Dirty South", "Southern Rap", "Southern Hip-Hop", "Crunk"]),
        sub("hiphop", "conscious", "Conscious", ["1068"], term: "Conscious Hip-Hop", [
            "Conscious Rap", "Conscious Hip-Hop", "Alternative Rap", "Alternative Hip-Hop", "Jazz Rap"]),
        sub("hiphop", "west-coast", "West Coast", ["1078", "1071"], term: "West Coast Rap", [
            "West Coast Rap", "West Coast Hip-Hop", "G-Funk", "Gangsta Rap"]),
        sub("hiphop", "underground", "Underground", ["1077", "1072"], term: "Underground Hip-Hop", [
            "Underground Rap", "Underground Hip-Hop", "Hardcore Rap", "Hardcore Hip-Hop"]),
    ], aliases: ["Rap", "Hip-Hop/Rap"])

    static let electronic = SuperGenre(id: "electronic", name: "Electronic", chartGenreIDs: ["7", "17"], subcategories: [
        sub("electronic", "house", "House", ["1048"], term: "House Music", [
            "Deep House", "Tech House", "Progressive House", "Acid House"]),
        sub("electronic", "techno", "Techno", ["1050"], ["Minimal Techno", "Detroit Techno"]),
        sub("electronic", "trance", "Trance", ["1051"], ["Progressive Trance", "Psytrance", "Goa Trance"]),
        // The UK "hardcore continuum" (jungle → garage → dubstep) shares a family and a bar pill.
        sub("electronic", "drum-and-bass", "Drum & Bass", ["1049", "1044", "1046"], [
            "Drum'n'bass", "DnB", "D&B", "Jungle", "Jungle/Drum'n'bass", "Breakbeat", "Breaks",
            "Big Beat", "Garage", "UK Garage", "Dubstep", "Grime"]),
        sub("electronic", "ambient", "Ambient", ["1056", "13"], ["New Age", "Dark Ambient", "Drone"]),
        sub("electronic", "downtempo", "Downtempo", ["1057"], ["Trip-Hop", "Chillout"]),
        sub("electronic", "idm", "IDM", ["1060", "1061"], ["IDM/Experimental", "Intelligent Dance Music", "Industrial",
                                                           "Experimental Electronic", "Glitch"]),
    ], aliases: ["Dance", "EDM", "Electronica", "Electronic Dance Music", "Electro"])

    static let rnb = SuperGenre(id: "rnb", name: "R&B", chartGenreIDs: ["15"], subcategories: [
        sub("rnb", "contemporary", "Contemporary R&B", ["1136", "1142"], [
            "Modern R&B", "Alternative R&B", "Quiet Storm", "New Jack Swing"]),
        sub("rnb", "soul", "Soul", ["1143", "1140", "1138"], term: "Soul Music", [
            "Motown", "Classic Soul", "Northern Soul", "Southern Soul", "Philly Soul", "Doo Wop"]),
        sub("rnb", "funk", "Funk", ["1139", "1137"], ["P-Funk", "Disco", "Boogie"]),
        sub("rnb", "neo-soul", "Neo-Soul", ["1141"], ["Nu Soul"]),
        sub("rnb", "gospel", "Gospel", ["1101", "1100", "1105"], [
            "Contemporary Gospel", "Traditional Gospel", "Christian & Gospel"]),
        // musicmap's lineage: blues is R&B's root; Apple's Blues (2) is a top-chart genre of its own.
        sub("rnb", "blues", "Blues", ["2", "1007", "1009", "1010", "1011", "1012", "1013", "1210"], [
            "Delta Blues", "Chicago Blues", "Electric Blues", "Acoustic Blues", "Classic Blues", "Contemporary Blues",
            "Country Blues"]),
    ], aliases: ["R&B/Soul", "RnB", "Rhythm and Blues"])

    static let jazz = SuperGenre(id: "jazz", name: "Jazz", chartGenreIDs: ["11"], subcategories: [
        sub("jazz", "bebop", "Bebop", ["1053", "1207"], ["Bop", "Hard Bop", "Post-Bop"]),
        sub("jazz", "cool", "Cool Jazz", ["1209"], ["Cool", "West Coast Jazz"]),
        sub("jazz", "fusion", "Fusion", ["1110", "1108"], term: "Jazz Fusion", [
            "Jazz Fusion", "Jazz-Rock", "Jazz-Funk", "Acid Jazz", "Crossover Jazz"]),
        sub("jazz", "smooth", "Smooth Jazz", ["1114"]),
        sub("jazz", "big-band", "Big Band", ["1052", "1055"], ["Swing"]),
        sub("jazz", "vocal", "Vocal Jazz", ["1175", "1173"], ["Jazz Vocals", "Standards", "Jazz Standards"]),
    ])

    static let country = SuperGenre(id: "country", name: "Country", chartGenreIDs: ["6"], subcategories: [
        sub("country", "honky-tonk", "Honky Tonk", ["1039", "1042"], ["Traditional Country", "Classic Country",
                                                                     "Western Swing"]),
        sub("country", "bluegrass", "Bluegrass", ["1035", "1036", "1041"], [
            "Contemporary Bluegrass", "Traditional Bluegrass", "Newgrass"]),
        sub("country", "americana", "Americana", ["1034", "1033"], ["Alt-Country", "Alternative Country"]),
        sub("country", "outlaw", "Outlaw Country", ["1040"], ["Outlaw", "Red Dirt"]),
        sub("country", "contemporary", "Contemporary Country", ["1037", "1043"], [
            "Modern Country", "Country Pop", "Urban Cowboy", "New Country"]),
        // The PRD's Folk / Acoustic group (Folk, Singer-Songwriter, Acoustic, Indie Folk); Apple's 10 and 1289.
        sub("country", "folk", "Folk", ["1289", "1063", "1067", "1062", "10", "1064", "1065", "1066"], [
            "Indie Folk", "Alternative Folk", "Contemporary Folk", "Traditional Folk", "Folk-Rock", "Singer/Songwriter",
            "Contemporary Singer/Songwriter", "New Acoustic", "Acoustic"]),
    ], aliases: ["Country & Western"])

    static let classical = SuperGenre(id: "classical", name: "Classical", chartGenreIDs: ["5"], subcategories: [
        sub("classical", "early", "Early Music", ["1023", "1025", "1030", "1020"], [
            "Medieval", "Medieval Era", "Renaissance", "Chant", "Gregorian Chant"]),
        sub("classical", "baroque", "Baroque", ["1018"], ["Baroque Era"]),
        sub("classical", "romantic", "Romantic", ["1031"], term: "Romantic Era", ["Romantic Era"]),
        sub("classical", "modern", "Modern", ["1027", "1024", "1026", "1017"], term: "Modern Classical", [
            "Modern Era", "Modern Classical", "Contemporary Classical", "Impressionist", "Minimalism", "Avant-Garde"]),
        sub("classical", "opera", "Opera", ["9", "1028"], ["Operetta"]),
        sub("classical", "orchestral", "Orchestral", ["1029", "1290"], ["Symphony", "Symphonic"]),
    ], aliases: ["Classical Music", "Chamber Music", "Choral", "Classical Crossover"])

    static let latin = SuperGenre(id: "latin", name: "Latin", chartGenreIDs: ["12"], subcategories: [
        sub("latin", "pop", "Latin Pop", ["1117"], ["Pop Latino"]),
        sub("latin", "urbano", "Reggaeton", ["1119", "1074"], [
            "Urbano", "Urbano Latino", "Latin Urban", "Latin Trap", "Latin Rap", "Dembow"]),
        sub("latin", "tropical", "Salsa y Tropical", ["1124"], term: "Salsa", [
            "Salsa", "Tropical", "Merengue", "Bachata", "Cumbia"]),
        sub("latin", "regional-mexicano", "Regional Mexicano", ["1123"], [
            "Regional Mexican", "Mariachi", "Banda", "Norteño", "Ranchera", "Corridos"]),
        sub("latin", "bossa-nova", "Bossa Nova", ["1221", "1225"], ["MPB", "Musica Popular Brasileira"]),
        sub("latin", "samba", "Samba", ["1227", "1226"], ["Pagode"]),
        sub("latin", "tango", "Tango", ["1296"], ["Nuevo Tango"]),
    ], aliases: ["Latino", "Latin Music"])
}
