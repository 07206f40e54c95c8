import CrateDomain
import CrateFeeds
import Foundation
import Testing

@Suite struct WallComposerTests {
    let context = FeedContext(seed: 2026)

    private func keys(_ result: WallResult) -> [String] { result.entries.map(\.key) }

    @Test func fillsTheWallInDialProportion() async {
        let weights = CrateDial.mixed.wallWeights
        let result = await WallComposer().compose(signals: fullWall(), weights: weights, total: 20, context: context)
        #expect(result.entries.count == 20)
        #expect(Set(keys(result)).count == 20)
        #expect(result.countsBySignal == distributeByWeight(total: 20, weights: weights))
        #expect(result.failures.isEmpty)
        #expect(result.explanation == nil)
        #expect(result.contributions.map(\.signal) == SignalID.wall)
        // Every entry's album came from the signal it names.
        #expect(result.entries.allSatisfy { $0.key.hasPrefix($0.signal.rawValue + "-") })
    }

    @Test func sameSeedSameWall() async {
        let a = await WallComposer().compose(signals: fullWall(), weights: CrateDial.mixed.wallWeights, total: 30,
                                             context: context)
        let b = await WallComposer().compose(signals: fullWall(), weights: CrateDial.mixed.wallWeights, total: 30,
                                             context: context)
        #expect(keys(a) == keys(b))
    }

    @Test func dedupsAcrossSignalsAndSourcesKeepingTheHeavierSignal() async {
        // The local library has the catalog album "X" (saved from Apple Music), so both sources offer it.
        let local = FakeSignal(.listeningHistory, SignalSource.local,
                               [album("X", source: "file"), album("lib-a", source: "file", catalog: false),
                                album("lib-b", source: "file", catalog: false)])
        let catalog = FakeSignal(.popularCharts, SignalSource.catalog,
                                 [album("X"), album("c1"), album("c2"), album("lib-a", source: "file", catalog: false)])
        let result = await WallComposer().compose(signals: [catalog, local],
                                                  weights: [.listeningHistory: 0.6, .popularCharts: 0.4],
                                                  total: 6, context: context)
        #expect(keys(result).filter { $0 == "X" }.count == 1)
        #expect(keys(result).filter { $0 == "lib-a" }.count == 1)
        #expect(result.entries.first { $0.key == "X" }?.signal == .listeningHistory)
        #expect(result.entries.first { $0.key == "X" }?.source == SignalSource.local)
        #expect(Set(keys(result)) == ["X", "lib-a", "lib-b", "c1", "c2"])
        #expect(result.explanation != nil) // five distinct albums for six places
    }

    @Test func dropsDislikedAndExcludedAlbums() async {
        let offered = [album("d1", opinion: .dislike), album("ok1"), album("fav", opinion: .favorite),
                       album("gone"), album("d2", opinion: .dislike), album("ok2")]
        let signal = FakeSignal(.recommendations, SignalSource.catalog, offered, honorsExcluded: false)
        let filler = FakeSignal(.popularCharts, SignalSource.catalog, albums("p", 50))
        let result = await WallComposer().compose(
            signals: [signal, filler], weights: [.recommendations: 0.5, .popularCharts: 0.5], total: 12,
            context: FeedContext(seed: 1, excluded: ["gone", "p3"]))
        let shown = Set(keys(result))
        #expect(shown.isDisjoint(with: ["d1", "d2", "gone", "p3"]))
        #expect(shown.isSuperset(of: ["ok1", "ok2", "fav"]))
        #expect(result.entries.count == 12)
        #expect(result.countsBySignal[.recommendations] == 3)
    }

    @Test func onePersonalSignalFailing() async {
        let weights = CrateDial.my.wallWeights
        let result = await WallComposer().compose(signals: fullWall(failing: [.listeningHistory]), weights: weights,
                                                  total: 30, context: context)
        #expect(result.entries.count == 30)
        #expect(result.failures == [SignalFailure(signal: .listeningHistory, source: SignalSource.catalog,
                                                  message: "listeningHistory unavailable")])
        #expect(result.countsBySignal[.listeningHistory] == nil)
        expectProportional(result.countsBySignal, weights.filter { $0.key != .listeningHistory }, total: 30)
        #expect(result.explanation == nil)
    }

    @Test func severalPersonalSignalsFailingAcrossSources() async {
        // Blended: each personal signal has a local and a catalog implementation, and all of them fail.
        var signals = fullWall(failing: [.listeningHistory, .recommendations])
        signals.append(FakeSignal(.listeningHistory, SignalSource.local, [], error: "no local history"))
        signals.append(FakeSignal(.recommendations, SignalSource.local, [], error: "no local recommendations"))
        let weights = CrateDial.my.wallWeights
        let result = await WallComposer().compose(signals: signals, weights: weights, total: 40, context: context)
        #expect(result.entries.count == 40)
        #expect(result.failures.count == 4)
        #expect(Set(result.failures.map(\.signal)) == [.listeningHistory, .recommendations])
        #expect(Set(result.countsBySignal.keys) == [.popularCharts, .newReleases, .wildCard])
        expectProportional(result.countsBySignal, weights.filter { !$0.key.isPersonal }, total: 40)
    }

    @Test func allPersonalFailOnTheMostPersonalDialAndOthersAreShort() async {
        // My Crate: 70 % personal. The rest must supply more than twice their share, so the composer asks again.
        let signals: [any WallSignal] = [
            FakeSignal(.listeningHistory, SignalSource.catalog, [], error: "401"),
            FakeSignal(.recommendations, SignalSource.catalog, [], error: "401"),
            FakeSignal(.popularCharts, SignalSource.catalog, albums("p", 100)),
            FakeSignal(.newReleases, SignalSource.catalog, albums("n", 100)),
            FakeSignal(.wildCard, SignalSource.catalog, albums("w", 3)),
        ]
        let result = await WallComposer().compose(signals: signals, weights: CrateDial.my.wallWeights, total: 50,
                                                  context: context)
        #expect(result.entries.count == 50)
        #expect(result.countsBySignal[.wildCard] == 3)
        #expect(Set(keys(result)).count == 50)
        #expect(result.failures.count == 2)
    }

    @Test func allSignalsFailing() async {
        let result = await WallComposer().compose(signals: fullWall(failing: Set(SignalID.wall)),
                                                  weights: CrateDial.mixed.wallWeights, total: 20, context: context)
        #expect(result.entries.isEmpty)
        #expect(result.contributions.isEmpty)
        #expect(result.failures.count == 5)
        let why = result.explanation ?? ""
        #expect(why.hasPrefix("Every signal failed"))
        #expect(why.contains("wildCard unavailable") && why.contains("Listening History"))
    }

    @Test func noSignalsOrNoWeights() async {
        let none = await WallComposer().compose(signals: [], weights: CrateDial.mixed.wallWeights, total: 10,
                                                context: context)
        #expect(none.entries.isEmpty && none.explanation?.hasPrefix("No signal") == true)
        // Genre signals under wall weights have no weight: nothing is fetched.
        let unweighted = await WallComposer().compose(signals: [FakeSignal(.trending, SignalSource.catalog, albums("t", 5))],
                                                      weights: CrateDial.mixed.wallWeights, total: 10, context: context)
        #expect(unweighted.entries.isEmpty && unweighted.attemptedCount == 0)
        let zero = await WallComposer().compose(signals: fullWall(), weights: CrateDial.mixed.wallWeights, total: 0,
                                                context: context)
        #expect(zero.entries.isEmpty && zero.explanation == nil)
    }

    @Test func shortSignalsGiveWhatTheyHave() async {
        let signals: [any WallSignal] = [
            FakeSignal(.popularCharts, SignalSource.catalog, albums("p", 4)),
            FakeSignal(.wildCard, SignalSource.catalog, albums("w", 2)),
        ]
        let result = await WallComposer().compose(signals: signals, weights: [.popularCharts: 0.5, .wildCard: 0.5],
                                                  total: 10, context: context)
        #expect(result.entries.count == 6)
        #expect(result.explanation == "The signals ran out of albums (6 of 10).")
    }

    @Test func blendedSourcesBothContributeToOneSignal() async {
        let signals: [any WallSignal] = [
            FakeSignal(.listeningHistory, SignalSource.local,
                       (0..<20).map { album("local\($0)", source: "file", catalog: false) }),
            FakeSignal(.listeningHistory, SignalSource.catalog, albums("cat", 20)),
            FakeSignal(.popularCharts, SignalSource.catalog, albums("p", 20)),
        ]
        let result = await WallComposer().compose(signals: signals,
                                                  weights: [.listeningHistory: 0.5, .popularCharts: 0.5],
                                                  total: 10, context: context)
        #expect(result.contributions == [
            SignalContribution(signal: .listeningHistory, source: SignalSource.catalog, count: 2),
            SignalContribution(signal: .listeningHistory, source: SignalSource.local, count: 3),
            SignalContribution(signal: .popularCharts, source: SignalSource.catalog, count: 5),
        ])
    }

    @Test(arguments: [true, false])
    func fetchMoreNeverRepeats(signalsHonorExclusions: Bool) async {
        let signals: [any WallSignal] = SignalID.wall.map {
            FakeSignal($0, SignalSource.catalog, albums($0.rawValue + "-", 60), honorsExcluded: signalsHonorExclusions)
        }
        let composer = WallComposer()
        let first = await composer.compose(signals: signals, weights: CrateDial.mixed.wallWeights, total: 20,
                                           context: context)
        var seen = keys(first)
        // The caller also shows albums from elsewhere; those must not come back either.
        let alsoOnScreen: Set<String> = ["wildCard-59", "popularCharts-30", "newReleases-12"]
        for _ in 0..<5 {
            let page = await composer.fetchMore(excluding: alsoOnScreen)
            #expect(page.entries.count == 20)
            seen += keys(page)
        }
        #expect(seen.count == 120)
        #expect(Set(seen).count == seen.count)
        #expect(Set(seen).isDisjoint(with: alsoOnScreen.subtracting(keys(first))))
        #expect(await composer.shownKeys == Set(seen))
        // 300 albums minus what was shown and excluded: the rest eventually runs out without repeating.
        var more = await composer.fetchMore(total: 1000)
        #expect(Set(keys(more)).isDisjoint(with: seen))
        seen += keys(more)
        more = await composer.fetchMore()
        #expect(more.entries.isEmpty)
        #expect(Set(seen).count == seen.count)
    }

    @Test func fetchMoreBeforeComposeIsEmpty() async {
        let page = await WallComposer().fetchMore()
        #expect(page.entries.isEmpty)
    }

    @Test func genreFeedsReachTheirSignalsWithTheGenre() async throws {
        let rock = try #require(GenreSelection(superGenre: "rock"))
        let signals: [any WallSignal] = SignalID.genre.map { GenreEcho(id: $0) }
        let result = await WallComposer().compose(signals: signals, weights: CrateDial.mystery.genreWeights, total: 20,
                                                  context: FeedContext(seed: 5, genre: rock))
        #expect(result.entries.count == 20)
        #expect(result.entries.allSatisfy { $0.album.genre == rock.superGenre.name })
        #expect(result.countsBySignal == distributeByWeight(total: 20, weights: CrateDial.mystery.genreWeights))
    }

    @Test(.timeLimit(.minutes(1)))
    func fetchesAllSignalsInParallel() async {
        let gate = Gate()
        let (started, continuation) = AsyncStream.makeStream(of: SignalID.self)
        let signals: [any WallSignal] = SignalID.wall.map {
            GatedSignal(id: $0, gate: gate, started: continuation, albums: albums($0.rawValue + "-", 20))
        }
        let composer = WallComposer()
        let wall = Task {
            await composer.compose(signals: signals, weights: CrateDial.mixed.wallWeights, total: 20, context: context)
        }
        // Each signal blocks until the gate opens, so all five can start only if they run at once.
        var starts = Set<SignalID>()
        for await id in started {
            starts.insert(id)
            if starts.count == SignalID.wall.count { break }
        }
        #expect(starts == Set(SignalID.wall))
        await gate.open()
        let result = await wall.value
        #expect(result.entries.count == 20)
        continuation.finish()
    }
}

/// Albums tagged with the context's genre, as a genre-scoped signal would return.
private struct GenreEcho: WallSignal {
    let id: SignalID
    let source = SignalSource.catalog

    func candidates(limit: Int, context: FeedContext) async throws -> [Album] {
        guard let genre = context.genre else { throw FakeError(description: "no genre") }
        return (0..<limit).map {
            var item = album("\(id.rawValue)-\($0)")
            item.genre = genre.superGenre.name
            return item
        }
    }
}

/// Each count within one album of its exact proportional share of `total`.
private func expectProportional(_ counts: [SignalID: Int], _ weights: [SignalID: Double], total: Int,
                                sourceLocation: SourceLocation = #_sourceLocation) {
    let sum = weights.values.reduce(0, +)
    #expect(counts.values.reduce(0, +) == total, sourceLocation: sourceLocation)
    for (id, weight) in weights {
        let quota = Double(total) * weight / sum
        #expect(abs(Double(counts[id] ?? 0) - quota) < 1.0 + 1e-9, "\(id)", sourceLocation: sourceLocation)
    }
}
