import CrateDomain
import CrateFeeds
import Testing

@Suite struct DistributeByWeightTests {
    @Test func knownCaseFromTheBrief() {
        // Quotas 3.5 / 3.5 / 2 / 1: floors give 9, the one left over goes to the first of the two tied halves.
        let counts = distributeByWeight(total: 10, weights: [.listeningHistory: 0.35, .recommendations: 0.35,
                                                             .popularCharts: 0.2, .newReleases: 0.1])
        #expect(counts == [.listeningHistory: 4, .recommendations: 3, .popularCharts: 2, .newReleases: 1])
    }

    @Test func sevenOverThreeEqualWeights() {
        let third = 1.0 / 3
        let counts = distributeByWeight(total: 7, weights: [.wildCard: third, .popularCharts: third, .newReleases: third])
        #expect(counts == [.popularCharts: 3, .newReleases: 2, .wildCard: 2])
    }

    @Test func equalRemaindersGoToTheHeavierWeight() {
        // Quotas 4.5 / 3.5 / 2: the remainders tie at .5, the heavier weight wins.
        #expect(distributeByWeight(total: 10, weights: [.recommendations: 0.45, .listeningHistory: 0.35, .wildCard: 0.2])
            == [.recommendations: 5, .listeningHistory: 3, .wildCard: 2])
        // Quotas 2.5 / 1.5 / 1.
        #expect(distributeByWeight(total: 5, weights: [.newReleases: 0.5, .popularCharts: 0.3, .wildCard: 0.2])
            == [.newReleases: 3, .popularCharts: 1, .wildCard: 1])
    }

    @Test func largestRemainderWinsOverWeight() {
        // Quotas 0.7 / 2.3: the lighter signal's remainder .7 beats .3. Quotas 0.93 / 3.07: again the lighter.
        #expect(distributeByWeight(total: 3, weights: [.wildCard: 0.7, .popularCharts: 2.3])
            == [.wildCard: 1, .popularCharts: 2])
        #expect(distributeByWeight(total: 4, weights: [.wildCard: 0.7, .popularCharts: 2.3])
            == [.wildCard: 1, .popularCharts: 3])
    }

    @Test func weightsNeedNotSumToOne() {
        #expect(distributeByWeight(total: 12, weights: [.trending: 3, .seedExpansion: 2, .personalHistory: 1])
            == [.trending: 6, .seedExpansion: 4, .personalHistory: 2])
    }

    @Test func zeroAndOneSignalCases() {
        let weights: [SignalID: Double] = [.listeningHistory: 0.5, .wildCard: 0.5]
        #expect(distributeByWeight(total: 0, weights: weights) == [.listeningHistory: 0, .wildCard: 0])
        #expect(distributeByWeight(total: -3, weights: weights) == [.listeningHistory: 0, .wildCard: 0])
        #expect(distributeByWeight(total: 9, weights: [:]).isEmpty)
        #expect(distributeByWeight(total: 13, weights: [.popularCharts: 0.2]) == [.popularCharts: 13])
        #expect(distributeByWeight(total: 5, weights: [.popularCharts: 0, .wildCard: 0]) == [.popularCharts: 0, .wildCard: 0])
        #expect(distributeByWeight(total: 5, weights: [.popularCharts: 1, .wildCard: 0, .newReleases: -1, .trending: .nan])
            == [.popularCharts: 5, .wildCard: 0, .newReleases: 0, .trending: 0])
        #expect(distributeByWeight(total: 1, weights: [.popularCharts: 0.5, .wildCard: 0.5]) == [.popularCharts: 1, .wildCard: 0])
    }

    @Test func countsSumExactlyAndStayWithinOneOfTheQuota() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let ids = SignalID.allCases.filter { _ in Bool.random(using: &rng) }
            guard !ids.isEmpty else { continue }
            let weights = Dictionary(uniqueKeysWithValues: ids.map { ($0, Double.random(in: 0.001...1, using: &rng)) })
            let total = Int.random(in: 0...300, using: &rng)
            let counts = distributeByWeight(total: total, weights: weights)
            #expect(counts.values.reduce(0, +) == total)
            #expect(Set(counts.keys) == Set(weights.keys))
            let sum = weights.values.reduce(0, +)
            for (id, weight) in weights {
                let quota = Double(total) * weight / sum
                let count = Double(counts[id] ?? -1)
                #expect(count >= quota.rounded(.down) - 1e-9 && count <= quota.rounded(.up) + 1e-9)
            }
        }
    }

    @Test func dialTablesDistributeToTheTotal() {
        for dial in CrateDial.allCases {
            for total in [1, 7, 24, 50, 101] {
                #expect(distributeByWeight(total: total, weights: dial.wallWeights).values.reduce(0, +) == total)
                #expect(distributeByWeight(total: total, weights: dial.genreWeights).values.reduce(0, +) == total)
            }
        }
    }
}
