import CrateDomain
import Foundation

/// One signal implementation's progress during a composition: what it returned (filtered) and how far the
/// composer has read.
struct SignalRun {
    let signal: any WallSignal
    var limit: Int
    var candidates: [Album] = []
    var seen: Set<String> = []
    var cursor = 0
    /// It returned a full page, so asking for more may give more.
    var mayHaveMore = true
    var error: String?
    var contributed = 0

    init(signal: any WallSignal, limit: Int) {
        self.signal = signal
        self.limit = limit
    }

    /// Keeps what may be shown: not disliked, not blocked, not already returned by this run.
    mutating func absorb(_ albums: [Album], blocked: Set<String>) {
        for album in albums {
            let key = FeedKey.of(album)
            guard album.opinion != .dislike, !blocked.contains(key), seen.insert(key).inserted else { continue }
            candidates.append(album)
        }
    }

    var isDrained: Bool { cursor >= candidates.count }

    mutating func next(skipping taken: Set<String>) -> Album? {
        while cursor < candidates.count {
            let album = candidates[cursor]
            cursor += 1
            if !taken.contains(FeedKey.of(album)) { return album }
        }
        return nil
    }
}

/// The pure part of composing: picking albums from fetched candidates by weight, with redistribution.
struct Composition {
    var runs: [SignalRun]
    /// Positive weights of the ids that have at least one implementation.
    let weights: [SignalID: Double]
    var taken: Set<String> = []
    var picked: [SignalID: [WallEntry]] = [:]
    var count = 0
    /// Round robin position among an id's implementations, so local and catalog alternate.
    private var turn: [SignalID: Int] = [:]

    init(runs: [SignalRun], weights: [SignalID: Double]) {
        self.runs = runs
        let present = Set(runs.map(\.signal.id))
        self.weights = weights.filter { present.contains($0.key) && $0.value.isFinite && $0.value > 0 }
    }

    /// Heavier first, so an album two signals offer goes to the heavier one; then the fixed order.
    var priority: [SignalID] {
        weights.keys.sorted { a, b in
            let (wa, wb) = (weights[a] ?? 0, weights[b] ?? 0)
            return wa != wb ? wa > wb : a < b
        }
    }

    /// Takes albums until `target` are picked or every signal is out. Each pass splits the target over the
    /// signals not yet out, in proportion to their weights (largest remainder), after setting aside what the
    /// ones that are out already gave, and tops every signal up to its split. So a failed or short signal's
    /// share flows to the others in proportion, and the survivors end within one album of their exact share.
    /// Returns early when a signal runs dry that may have more (`mayHaveMore`): the composer fetches more and
    /// calls again.
    mutating func fill(upTo target: Int) {
        var exhausted: Set<SignalID> = []
        while count < target {
            let open = weights.filter { !exhausted.contains($0.key) }
            guard !open.isEmpty else { return }
            let fixed = exhausted.reduce(0) { $0 + (picked[$1]?.count ?? 0) }
            let split = distributeByWeight(total: target - fixed, weights: open)
            var needs = split.mapValues { _ in 0 }
            for (id, share) in split {
                needs[id] = max(0, share - (picked[id]?.count ?? 0))
            }
            if needs.values.reduce(0, +) == 0 {
                // A signal already holds more than its split (dedup moved albums around): share what is missing.
                needs = distributeByWeight(total: target - count, weights: open)
            }
            for id in priority where open[id] != nil {
                for _ in 0..<(needs[id] ?? 0) {
                    guard count < target else { return }
                    guard let entry = next(for: id) else {
                        // Out of fetched albums but may have more: fetch before handing its share to
                        // others, or a survivor's short first page would skew the proportions.
                        if runs.contains(where: { $0.signal.id == id && $0.mayHaveMore }) { return }
                        exhausted.insert(id)
                        break
                    }
                    taken.insert(entry.key)
                    picked[id, default: []].append(entry)
                    count += 1
                }
            }
        }
    }

    private mutating func next(for id: SignalID) -> WallEntry? {
        let members = runs.indices.filter { runs[$0].signal.id == id }
        guard !members.isEmpty else { return nil }
        let start = turn[id] ?? 0
        for step in 0..<members.count {
            let slot = (start + step) % members.count
            let index = members[slot]
            if let album = runs[index].next(skipping: taken) {
                turn[id] = slot + 1
                runs[index].contributed += 1
                return WallEntry(album: album, signal: id, source: runs[index].signal.source)
            }
        }
        return nil
    }
}
