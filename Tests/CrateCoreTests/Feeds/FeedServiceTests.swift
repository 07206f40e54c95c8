import CrateCore
import CrateDomain
import CrateFeeds
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

/// The feeds on a real SQLite library with no catalog: the wall, genre feeds, the dial and opinions.
@Suite struct FeedServiceTests {
    let dir: URL
    init() throws { dir = try Fixture.temporaryDirectory("crate-feeds") }

    /// 120 albums; a third of them played (the first ones most), two liked, one disliked.
    func library() throws -> CrateRuntime {
        let runtime = try FeedLibrary.make(dir, albums: 120)
        let albums = try runtime.store.albums(sort: ListSort(.added))
        for (index, album) in albums.prefix(40).enumerated() { try FeedLibrary.play(runtime, album: album.id, times: 40 - index) }
        try runtime.store.setOpinion(.album, id: albums[0].id, .favorite)
        try runtime.store.setOpinion(.album, id: albums[3].id, .favorite)
        try runtime.store.setOpinion(.album, id: albums[50].id, .dislike)
        return runtime
    }

    @Test func aLocalOnlyWallIsFullVariedAndWithoutDislikes() async throws {
        let runtime = try library()
        let feeds = runtime.feeds(seed: 1)
        let page = await feeds.wall()
        #expect(page.entries.count == FeedService.pageSize)
        #expect(page.entries.allSatisfy { $0.source == "local" })
        #expect(Set(page.entries.map(\.id)).count == page.entries.count)
        #expect(!page.entries.contains { $0.title == "Album 50" })
        // Every wall signal has material in this library, so every one contributes.
        #expect(Set(page.contributions.map(\.signal)) == Set(SignalID.wall.map(\.rawValue)), "\(page.contributions)")
        #expect(page.failures.isEmpty && page.explanation == nil)
        #expect(page.entries.contains { $0.artworkURL == nil })   // no artwork in this library: none invented
    }

    @Test func theWallIsKeptAndMoreNeverRepeats() async throws {
        let runtime = try library()
        let feeds = runtime.feeds(seed: 2)
        let first = await feeds.wall()
        #expect(await feeds.wall().entries.map(\.id) == first.entries.map(\.id))     // kept, not recomposed
        let more = try await feeds.moreWall()
        #expect(more.pages == 2 && more.newest > 0)
        // An answer to "more" holds that page only: its size does not grow with the scrolling.
        #expect(more.entries.count == more.newest)
        #expect(Set(more.entries.map(\.id)).count == more.entries.count)
        #expect(Set(more.entries.map(\.id)).isDisjoint(with: first.entries.map(\.id)))
        let again = try await feeds.moreWall()
        #expect(again.pages == 3 && again.entries.count == again.newest)
        #expect(Set(again.entries.map(\.id)).isDisjoint(with: first.entries.map(\.id) + more.entries.map(\.id)))
        // The wall itself still holds every page.
        #expect(await feeds.wall().entries.count == first.entries.count + more.newest + again.newest)
    }

    @Test func theDialShiftsTheWall() async throws {
        let runtime = try library()
        func personal(_ dial: String) async throws -> Int {
            let feeds = runtime.feeds(seed: 3)
            try await feeds.setDial(dial, regenerate: false)
            let page = await feeds.regenerateWall()
            #expect(page.dial == CrateDial(parsing: dial)?.rawValue)
            return page.entries.filter { SignalID(rawValue: $0.signal)?.isPersonal ?? false }.count
        }
        let mine = try await personal("my"), mystery = try await personal("mystery")
        #expect(mine > mystery, "personal albums: my \(mine), mystery \(mystery)")
    }

    @Test(.promptly) func theDialIsKeptAndChangesRegenerateOnceAfterThePause() async throws {
        let runtime = try library()
        let events = EventBus()
        let stream = events.subscribe()
        let feeds = FeedService(store: runtime.store, catalog: runtime.catalog, logger: runtime.logger, events: events, seed: 4,
                                debounce: .seconds(2))   // wide: three calls in a row never take that long
        _ = await feeds.wall()
        try await feeds.setDial("my")
        try await feeds.setDial("mostly-mystery")
        try await feeds.setDial("4")
        await feeds.settle()
        #expect(await feeds.wall().dial == "mystery")
        #expect(await runtime.feeds().dial() == .mystery)                  // persisted: a new service reads it
        await #expect(throws: FeedError.self) { try await feeds.setDial("loud") }
        // The last event: a dial change that composes nothing (its second `dial my`).
        try await feeds.setDial("my", regenerate: false)
        var walls: [String] = [], dialsToMy = 0
        for await event in stream {
            if event == .feeds(.dial(.my)) { dialsToMy += 1 }
            if dialsToMy == 2 { break }
            if case .feeds(.wall) = event { walls.append(event.detail) }
        }
        // One wall at first use, then one for three quick dial changes: the last position.
        #expect(walls == ["wall mixed", "wall mystery"])
    }

    @Test func aGenreFeedForALocalGenreStaysInIt() async throws {
        let runtime = try library()
        let feeds = runtime.feeds(seed: 5)
        let rock = try await feeds.genre("rock")
        #expect(rock.genre == "Rock" && !rock.entries.isEmpty)
        #expect(rock.entries.allSatisfy { ["Indie Rock", "Punk"].contains($0.genre ?? "") }, "\(rock.entries.map(\.genre))")
        let punk = try await feeds.genre("rock", subcategories: ["punk"])
        #expect(!punk.entries.isEmpty && punk.entries.allSatisfy { $0.genre == "Punk" })
        let more = try await feeds.genre("rock", subcategories: ["punk"], more: true)
        #expect(Set(more.entries.map(\.id)).count == more.entries.count)
        await #expect(throws: (any Error).self) { try await feeds.genre("polka") }
    }

    @Test func likeAndDislikeExcludeEachOtherAndDislikesLeaveTheWall() async throws {
        let runtime = try library()
        let feeds = runtime.feeds(seed: 6)
        let album = try #require(try runtime.store.albums().first { $0.title == "Album 7" })
        let liked = try await feeds.like(String(album.id))
        #expect(liked.opinion == .favorite && liked.writes.isEmpty && liked.notSent == nil)
        let disliked = try await feeds.dislike("Album 7")
        #expect(disliked.opinion == .dislike)
        #expect(try runtime.store.opinion(.album, id: album.id) == .dislike)
        #expect(try !runtime.store.favorites().albums.contains { $0.id == album.id })
        for _ in 0..<3 {
            #expect(!(await feeds.regenerateWall()).entries.contains { $0.id == String(album.id) })
        }
        let cleared = try await feeds.clearOpinion(String(album.id), only: .favorite)
        #expect(cleared.opinion == .dislike)                               // clearing a like leaves the dislike
        #expect(try await feeds.clearOpinion(String(album.id)).opinion == nil)
        await #expect(throws: (any Error).self) { try await feeds.like("no such album at all") }
    }

    /// Issue 16, item 17: a dislike takes the album off the kept wall at once, without a regeneration.
    @Test func aDislikeLeavesTheKeptWallAtOnce() async throws {
        let runtime = try library()
        let feeds = runtime.feeds(seed: 3)
        let kept = await feeds.wall()
        let first = try #require(kept.entries.first)
        _ = try await feeds.dislike(first.id)
        let after = await feeds.wall()
        #expect(!after.entries.contains { $0.id == first.id })
        #expect(after.entries.count == kept.entries.count - 1 && after.generatedAt == kept.generatedAt)
    }

    /// Issue 16, item 16: without a catalog a like of a catalog album is kept (it was refused) and waits to be sent.
    @Test func aCatalogAlbumLikedWithoutACatalogIsKeptUnsent() async throws {
        let runtime = try library()
        let outcome = try await runtime.feeds().like("applemusic:1616728060")
        #expect(outcome.opinion == .favorite && outcome.notSent?.contains("it will be sent") == true && outcome.writes.isEmpty)
        #expect(try runtime.store.unsentCatalogOpinions().map(\.externalID) == ["1616728060"])
        #expect(await runtime.feeds().sendUnsent() == 0)   // still no catalog: it stays
        _ = try await runtime.feeds().clearOpinion("applemusic:1616728060")
        #expect(try runtime.store.unsentCatalogOpinions().isEmpty)
    }

    @Test func diagnoseChecksTheRulesAndListsUnmappedGenres() async throws {
        let runtime = try library()
        let report = await runtime.feeds().diagnose()
        #expect(report.ok, "\(report.checks)")
        #expect(report.checks.count == 6)
        #expect(report.unmappedGenres.map(\.tag) == ["Polka"])
        #expect(report.signals.filter { $0.feed == "wall" }.count == 5)
        #expect(report.signals.contains { $0.signal == "wildCard" && $0.live })
        #expect(report.signals.allSatisfy { $0.source == "local" && $0.error == nil })
        // The self-test rolled back: nothing the user has changed.
        #expect(try runtime.store.favorites().albums.count == 2)
    }

    @Test func anEmptyLibraryWithNoCatalogSaysWhy() async throws {
        let runtime = try FeedLibrary.make(dir, albums: 0)
        let page = await runtime.feeds().wall()
        #expect(page.entries.isEmpty && page.explanation != nil)
    }
}
