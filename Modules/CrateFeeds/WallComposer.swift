import CrateDomain
import Foundation

/// Composes the Crate Wall and genre feeds (ADR-115, ADR-118, ADR-119): fetches every weighted signal in
/// parallel, turns weights into album counts (largest remainder), deduplicates across signals and sources,
/// drops dislikes and exclusions, redistributes the share of failed or short signals, and interleaves.
///
/// It remembers what it has shown since the last `compose`, so `fetchMore` never repeats an album. Calls are
/// served one at a time, in the order they arrive. All randomness comes from the context's seed.
public actor WallComposer {
    /// How many times a short page goes back to signals that returned a full page (the first fetch included).
    public let maxFetchRounds: Int

    private var signals: [any WallSignal] = []
    private var weights: [SignalID: Double] = [:]
    private var total = 0
    private var base: FeedContext?
    private var rng = SplitMix64(seed: 0)
    private var shown: Set<String> = []
    private var round = 0
    private var tail: Task<Void, Never>?

    public init(maxFetchRounds: Int = 3) {
        self.maxFetchRounds = max(1, maxFetchRounds)
    }

    /// Starts a feed: forgets what was shown and composes the first `total` albums.
    public func compose(signals: [any WallSignal], weights: [SignalID: Double], total: Int,
                        context: FeedContext) async -> WallResult {
        await serialized { composer in
            composer.signals = signals
            composer.weights = weights
            composer.total = total
            composer.base = context
            composer.rng = SplitMix64(seed: context.seed)
            composer.shown = []
            composer.round = 0
            return await composer.composePage(total: total, extraExcluded: [])
        }
    }

    /// Continues the feed for infinite scroll: `total` more albums (default: the first page's size), none of
    /// them shown before by this composer or listed in `excluding` (what the caller already shows).
    public func fetchMore(excluding: Set<String> = [], total: Int? = nil) async -> WallResult {
        await serialized { composer in
            guard composer.base != nil else {
                return WallResult(entries: [], requested: total ?? 0, contributions: [], failures: [], attemptedCount: 0)
            }
            composer.round += 1
            return await composer.composePage(total: total ?? composer.total, extraExcluded: excluding)
        }
    }

    /// Every album key shown since the last `compose`.
    public var shownKeys: Set<String> { shown }

    /// Runs calls one after another: a page reads and extends `shown` across suspension points, so two pages
    /// composed at once could repeat each other.
    private func serialized(_ body: @escaping @Sendable (isolated WallComposer) async -> WallResult) async -> WallResult {
        let previous = tail
        let task = Task {
            await previous?.value
            return await body(self)
        }
        tail = Task { _ = await task.value }
        return await task.value
    }

    private func composePage(total: Int, extraExcluded: Set<String>) async -> WallResult {
        guard let base, total > 0 else {
            return WallResult(entries: [], requested: max(0, total), contributions: [], failures: [], attemptedCount: 0)
        }
        var context = base
        context.seed = rng.next()
        context.round = round
        context.excluded = base.excluded.union(shown).union(extraExcluded)
        let blocked = context.excluded

        let active = signals.filter { signal in
            guard let weight = weights[signal.id] else { return false }
            return weight.isFinite && weight > 0
        }
        // Ask for more than the share up front so redistribution has material without another round trip.
        let shares = distributeByWeight(total: total, weights: weights.filter { id, _ in active.contains { $0.id == id } })
        var composition = Composition(
            runs: active.map { SignalRun(signal: $0, limit: (shares[$0.id] ?? 0) * 2 + 4) },
            weights: weights)

        var pending = Array(composition.runs.indices)
        for fetchRound in 0..<maxFetchRounds {
            var roundContext = context
            if fetchRound > 0 {
                roundContext.excluded = blocked.union(composition.taken)
                    .union(composition.runs.reduce(into: Set<String>()) { $0.formUnion($1.seen) })
            }
            let jobs = pending.map { (index: $0, signal: composition.runs[$0].signal, limit: composition.runs[$0].limit) }
            let outcomes = await Self.fetch(jobs, context: roundContext)
            for (job, outcome) in zip(jobs, outcomes) {
                let index = job.index
                switch outcome {
                case .success(let albums):
                    composition.runs[index].mayHaveMore = albums.count >= composition.runs[index].limit
                    composition.runs[index].absorb(albums, blocked: blocked)
                case .failure(let error):
                    composition.runs[index].mayHaveMore = false
                    if composition.runs[index].candidates.isEmpty {
                        composition.runs[index].error = Self.describe(error)
                    }
                }
            }
            if fetchRound == maxFetchRounds - 1 {
                // Last round: whatever is fetched is all there is, so fill redistributes to the end.
                for index in composition.runs.indices { composition.runs[index].mayHaveMore = false }
            }
            composition.fill(upTo: total)
            let missing = total - composition.count
            guard missing > 0 else { break }
            // Fill stopped at a signal that ran dry but returned a full page: ask those again, for more.
            pending = composition.runs.indices.filter { composition.runs[$0].mayHaveMore && composition.runs[$0].isDrained }
            guard !pending.isEmpty else { break }
            for index in pending {
                composition.runs[index].limit += missing * 2 + 4
            }
        }

        let entries = weightedInterleave(composition.picked,
                                         weights: composition.picked.mapValues { Double($0.count) },
                                         rng: &rng).map(\.0)
        shown.formUnion(composition.taken)
        let ordered = composition.runs.sorted { a, b in
            a.signal.id != b.signal.id ? a.signal.id < b.signal.id : a.signal.source < b.signal.source
        }
        return WallResult(
            entries: entries,
            requested: total,
            contributions: ordered.filter { $0.contributed > 0 }
                .map { SignalContribution(signal: $0.signal.id, source: $0.signal.source, count: $0.contributed) },
            failures: ordered.compactMap { run in
                run.error.map { SignalFailure(signal: run.signal.id, source: run.signal.source, message: $0) }
            },
            attemptedCount: active.count)
    }

    /// Fetches in parallel (structured concurrency: nothing outlives the call); each outcome is kept apart
    /// so one failure costs only that signal's share. The outcomes come in the jobs' order.
    private static func fetch(_ jobs: [(index: Int, signal: any WallSignal, limit: Int)],
                              context: FeedContext) async -> [Result<[Album], any Error>] {
        await inParallel(jobs.map { job in
            { @Sendable () async -> Result<[Album], any Error> in
                do { return .success(try await job.signal.candidates(limit: job.limit, context: context)) } catch { return .failure(error) }
            }
        })
    }

    private static func describe(_ error: any Error) -> String {
        if let described = (error as? any LocalizedError)?.errorDescription { return described }
        return String(describing: error)
    }
}
