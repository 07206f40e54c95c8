import CrateFeeds
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

private func ids(_ albums: [Album]) -> [String] { mergeKeys(albums) }

/// Charts and search answered from fixed lists, pages cut like Apple's (with `next` links); records every call.
/// A chart genre in `blocking` never answers until its task is cancelled.
private actor FakeCatalog: CatalogAlbumPaging {
    struct Call: Hashable {
        var endpoint: String
        var key: String
        var offset: Int
        var limit: Int
    }

    let charts: [String: [Album]]
    let searches: [String: [Album]]
    let blocking: String?
    private(set) var calls: [Call] = []
    private var blockedStarted = false
    private var blockedWaiters: [CheckedContinuation<Void, Never>] = []

    init(charts: [String: [Album]] = [:], searches: [String: [Album]] = [:], blocking: String? = nil) {
        self.charts = charts
        self.searches = searches
        self.blocking = blocking
    }

    func chartAlbums(genreID: String?, offset: Int, limit: Int) async throws -> CatalogPage<Album> {
        let genre = genreID ?? ""
        calls.append(Call(endpoint: "charts", key: genre, offset: offset, limit: limit))
        if genre == blocking {
            blockedStarted = true
            blockedWaiters.forEach { $0.resume() }
            blockedWaiters = []
            try await Task.sleep(for: .seconds(86_400))  // ends with CancellationError when cancelled
        }
        return Self.page(charts[genre] ?? [], offset: offset, limit: limit, path: "charts?chart=most-played&genre=\(genre)")
    }

    func searchAlbums(term: String, offset: Int, limit: Int) async throws -> CatalogPage<Album> {
        calls.append(Call(endpoint: "search", key: term, offset: offset, limit: limit))
        return Self.page(searches[term] ?? [], offset: offset, limit: limit, path: "search?types=albums&term=\(term)")
    }

    /// Returns once the blocking chart request has started.
    func waitUntilBlocked() async {
        if blockedStarted { return }
        await withCheckedContinuation { blockedWaiters.append($0) }
    }

    private static func page(_ list: [Album], offset: Int, limit: Int, path: String) -> CatalogPage<Album> {
        let end = min(offset + limit, list.count)
        let items = offset < end ? Array(list[offset..<end]) : []
        let next = end < list.count ? "/v1/catalog/us/\(path)&offset=\(end)" : nil
        return CatalogPage(items: items, next: next)
    }
}

@Suite struct GenreBrowserTests {
    let rock = GenreTaxonomy.superGenres[0]

    private func genre(_ id: String) throws -> SuperGenre {
        try #require(GenreTaxonomy.superGenre(id))
    }

    private func sub(_ id: String) throws -> GenreSubcategory {
        try #require(GenreTaxonomy.subcategory(id))
    }

    @Test func aSuperGenreReadsItsChartsInterleavedByRank() async throws {
        let lists = ["21": catalogAlbums("r", 60), "20": catalogAlbums("a", 60), "1153": catalogAlbums("m", 60)]
        let fake = FakeCatalog(charts: lists)
        let page = try await CatalogGenreBrowser(catalog: fake).browse(GenreSelection(superGenre: rock))
        #expect(ids(page.albums) == ids(Array(GenreMerge.union([lists["21"], lists["20"], lists["1153"]].compactMap { $0 })
            .prefix(50))))
        #expect(page.index == 0 && page.hasMore)
        let calls = await fake.calls
        #expect(Set(calls) == [.init(endpoint: "charts", key: "21", offset: 0, limit: 50),
                               .init(endpoint: "charts", key: "20", offset: 0, limit: 50),
                               .init(endpoint: "charts", key: "1153", offset: 0, limit: 50)])
    }

    @Test func aSubcategoryReadsSearchForItsTerm() async throws {
        let indie = try sub("rock.indie")
        let fake = FakeCatalog(charts: ["21": catalogAlbums("r", 60)], searches: ["Indie Rock": catalogAlbums("i", 80)])
        let page = try await CatalogGenreBrowser(catalog: fake).browse(GenreSelection(superGenre: rock, subcategories: [indie]))
        #expect(ids(page.albums) == ids(catalogAlbums("i", 50)))
        let calls = await fake.calls
        #expect(calls.allSatisfy { $0.endpoint == "search" && $0.key == "Indie Rock" && $0.limit == 25 })
        #expect(Set(calls.map(\.offset)) == [0, 25])
    }

    @Test func severalSubcategoriesAreOneListWithoutDuplicatesInRankOrder() async throws {
        let punk = try sub("rock.punk")
        let indie = try sub("rock.indie")
        let fake = FakeCatalog(searches: [
            "Punk Rock": [catalogAlbum("p0"), catalogAlbum("x"), catalogAlbum("p2"), catalogAlbum("p3")],
            "Indie Rock": [catalogAlbum("i0"), catalogAlbum("i1"), catalogAlbum("x"), catalogAlbum("i3")],
        ])
        let browser = CatalogGenreBrowser(catalog: fake)
        let page = try await browser.browse(GenreSelection(superGenre: rock, subcategories: [punk, indie]))
        #expect(ids(page.albums) == ["p0", "i0", "x", "i1", "p2", "p3", "i3"])
        #expect(!page.hasMore)
        #expect(try await browser.browse(GenreSelection(superGenre: rock, subcategories: [punk, indie]), page: 1).albums
            .isEmpty)
    }

    @Test func aSparseChartIsFilledFromSearchForTheSuperGenre() async throws {
        let country = try genre("country")
        let charts = catalogAlbums("c", 12)
        let search = [catalogAlbum("c3")] + catalogAlbums("s", 200)
        let fake = FakeCatalog(charts: ["6": charts], searches: ["Country": search])
        let browser = CatalogGenreBrowser(catalog: fake)
        let first = try await browser.browse(GenreSelection(superGenre: country))
        #expect(ids(first.albums) == ids(charts + catalogAlbums("s", 38)))
        let second = try await browser.browse(GenreSelection(superGenre: country), page: 1)
        #expect(ids(second.albums) == ids(Array(catalogAlbums("s", 88)[38...])))
        #expect(await fake.calls.allSatisfy { $0.endpoint == "charts" ? $0.limit <= 50 : $0.limit <= 25 })
    }

    @Test func laterPagesContinueWithoutRepeats() async throws {
        // Overlapping charts: some albums chart in two genres.
        let r = catalogAlbums("r", 150)
        let a = catalogAlbums("a", 20) + [r[70], r[3]] + catalogAlbums("a", 150).suffix(100)
        let m = catalogAlbums("m", 30) + [a[5]] + catalogAlbums("m", 200).suffix(150)
        let fake = FakeCatalog(charts: ["21": r, "20": a, "1153": m])
        let browser = CatalogGenreBrowser(catalog: fake)
        var shown: [Album] = []
        for index in 0..<4 {
            let page = try await browser.browse(GenreSelection(superGenre: rock), page: index)
            #expect(page.albums.count == 50)
            shown += page.albums
        }
        #expect(Set(ids(shown)).count == 200)
        #expect(ids(shown) == ids(Array(GenreMerge.union([r, a, m]).prefix(200))))
    }

    @Test func browsingStopsAtTheCap() async throws {
        let jazz = try genre("jazz")
        let fake = FakeCatalog(charts: ["11": catalogAlbums("j", 700)])
        let browser = CatalogGenreBrowser(catalog: fake)
        let last = try await browser.browse(GenreSelection(superGenre: jazz), page: 9)
        #expect(ids(last.albums) == ids(Array(catalogAlbums("j", 500)[450...])))
        #expect(!last.hasMore)
        let calls = await fake.calls.count
        #expect(try await browser.browse(GenreSelection(superGenre: jazz), page: 10).albums.isEmpty)
        #expect(try await browser.browse(GenreSelection(superGenre: rock), page: 10).albums.isEmpty)
        #expect(await fake.calls.count == calls)
        #expect(await fake.calls.allSatisfy { $0.offset < 500 && $0.limit == 50 })
    }

    @Test func aPageAlreadyFetchedCostsNoCall() async throws {
        let jazz = try genre("jazz")
        let fake = FakeCatalog(charts: ["11": catalogAlbums("j", 120)])
        let browser = CatalogGenreBrowser(catalog: fake)
        let first = try await browser.browse(GenreSelection(superGenre: jazz))
        let before = await fake.calls.count
        let again = try await browser.browse(GenreSelection(superGenre: jazz))
        #expect(again.albums == first.albums)
        #expect(await fake.calls.count == before)
    }

    @Test(.timeLimit(.minutes(1)))  // a guard against a hang if cancellation broke, not a timing check
    func choosingAnotherGenreCancelsTheFetchInFlight() async throws {
        let jazz = try genre("jazz")
        let fake = FakeCatalog(charts: ["20": catalogAlbums("a", 10), "11": catalogAlbums("j", 60)], blocking: "21")
        let browser = CatalogGenreBrowser(catalog: fake)
        let rockSelection = GenreSelection(superGenre: rock)
        let superseded = Task { try await browser.browse(rockSelection) }
        await fake.waitUntilBlocked()
        let page = try await browser.browse(GenreSelection(superGenre: jazz))
        #expect(ids(page.albums) == ids(catalogAlbums("j", 50)))
        // If the browser failed to cancel, the time limit cancels the test, which ends `superseded` too, so the
        // run reports a failure instead of hanging.
        await #expect(throws: CancellationError.self) {
            try await withTaskCancellationHandler { try await superseded.value } onCancel: { superseded.cancel() }
        }
    }
}
