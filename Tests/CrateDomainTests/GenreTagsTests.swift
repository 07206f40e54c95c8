import CrateDomain
import Testing

/// Local genre tags onto the taxonomy: multi-genre tags split on ; / , and each part lands on its own.
struct GenreTagsTests {
    @Test func aSubcategoryTagLandsInItsSuperGenre() {
        let places = GenreTaxonomy.classifyAll("Indie Rock").places
        #expect(places.map(\.superGenre.name) == ["Rock"])
        #expect(places.first?.subcategory?.name == "Indie Rock")
    }

    @Test func multiGenreTagsSplitOnSemicolonSlashAndComma() {
        let (places, unmapped) = GenreTaxonomy.classifyAll("Indie Rock; Jazz/Hip Hop, Polka Fusion")
        #expect(places.map(\.superGenre.name) == ["Rock", "Jazz", "Hip-Hop"])
        #expect(unmapped == ["Polka Fusion"])
    }

    @Test func aWholeNameWinsOverItsParts() {
        // "R&B/Soul" is one genre, not R&B plus Soul.
        let places = GenreTaxonomy.classifyAll("R&B/Soul").places
        #expect(places.count == 1)
    }

    @Test func emptyAndUnknownTagsLandNowhere() {
        #expect(GenreTaxonomy.classifyAll("  ").places.isEmpty)
        #expect(GenreTaxonomy.classifyAll("Zydeco Metalcore").unmapped == ["Zydeco Metalcore"])
    }

    @Test func selectionsMatchBySuperGenreAndPickedSubcategories() throws {
        let rock = try #require(GenreSelection(superGenre: "Rock"))
        let indie = try #require(GenreSelection(superGenre: "Rock", subcategories: ["Indie Rock"]))
        #expect(GenreTaxonomy.matches(["Indie Rock"], rock))
        #expect(GenreTaxonomy.matches(["Indie Rock"], indie))
        #expect(!GenreTaxonomy.matches(["Rock"], indie))           // the super-genre alone is not the subcategory
        #expect(!GenreTaxonomy.matches(["Jazz"], rock))
    }
}
