import Foundation

/// Merges per-signal lists into one sequence in which heavier signals appear more often but do not clump
/// (ADR-115, ADR-118): smooth weighted round robin. Each step every signal that still has items gains its
/// weight in credit; the one with the most credit goes next and pays back the total weight in play. Over any
/// stretch each signal's share stays close to its weight, and the order is fixed by the weights: the generator
/// only breaks exact ties (equal credit), which is what makes two walls with equal weights differ.
///
/// **No-clustering guarantee:** a signal whose weight is at most half of the total weight of the signals that
/// still have items is never placed twice in a row while another signal still has items. (Only a signal worth
/// more than all the others together can repeat, and only because it must to keep its share.)
///
/// Lists keep their own order, every item appears exactly once, and a list leaves the rotation when it runs
/// out. Lists whose weight is missing or not positive follow at the end, in `SignalID` order.
public func weightedInterleave<Element, R: RandomNumberGenerator>(
    _ lists: [SignalID: [Element]], weights: [SignalID: Double], rng: inout R
) -> [(Element, SignalID)] {
    let weighted = lists.keys.filter { id in
        guard let weight = weights[id] else { return false }
        return weight.isFinite && weight > 0
    }.sorted()
    var cursor = lists.mapValues { _ in 0 }
    var credit = Dictionary(uniqueKeysWithValues: weighted.map { ($0, 0.0) })
    var out: [(Element, SignalID)] = []
    out.reserveCapacity(lists.values.reduce(0) { $0 + $1.count })
    var previous: SignalID?

    func hasItems(_ id: SignalID) -> Bool {
        (cursor[id] ?? 0) < (lists[id]?.count ?? 0)
    }

    while true {
        let active = weighted.filter(hasItems)
        guard !active.isEmpty else { break }
        let activeWeight = active.reduce(0) { $0 + (weights[$1] ?? 0) }
        for id in active {
            credit[id, default: 0] += weights[id] ?? 0
        }
        // The guarantee, enforced rather than hoped for: the last signal sits this step out unless it carries
        // more than half of the weight still in play.
        var allowed = active
        if let last = previous, active.count > 1, active.contains(last), (weights[last] ?? 0) <= activeWeight / 2 {
            allowed.removeAll { $0 == last }
        }
        let best = allowed.map { credit[$0] ?? 0 }.max() ?? 0
        let tolerance = 1e-9 * max(1, activeWeight)
        let tied = allowed.filter { abs((credit[$0] ?? 0) - best) <= tolerance }
        let chosen = tied.count == 1 ? tied[0] : tied[Int.random(in: 0..<tied.count, using: &rng)]
        credit[chosen, default: 0] -= activeWeight
        if let list = lists[chosen], let index = cursor[chosen] {
            out.append((list[index], chosen))
            cursor[chosen] = index + 1
        }
        previous = chosen
    }

    for id in lists.keys.sorted() where !weighted.contains(id) {
        for item in lists[id] ?? [] {
            out.append((item, id))
        }
    }
    return out
}
