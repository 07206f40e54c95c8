import Foundation

/// Whole album counts from fractional weights by the largest-remainder (Hamilton) method (ADR-119): each
/// signal gets the floor of its exact quota, and the albums left over go one each to the largest remainders.
/// The counts always sum to exactly `total` (when `total` > 0 and some weight is positive).
///
/// Weights need not sum to 1 (they are normalized); negative, NaN and infinite weights count as 0, and a
/// signal with weight 0 always gets 0. Ties between equal remainders go to the heavier weight, then to the
/// earlier signal in `SignalID`'s fixed order, so the result is deterministic.
/// Every key of `weights` appears in the result. With `total` ≤ 0 or no positive weight, all counts are 0.
public func distributeByWeight(total: Int, weights: [SignalID: Double]) -> [SignalID: Int] {
    var counts = weights.mapValues { _ in 0 }
    let usable = weights.compactMapValues { $0.isFinite && $0 > 0 ? $0 : nil }
    let sum = usable.values.reduce(0, +)
    guard total > 0, sum > 0, sum.isFinite else { return counts }

    // A tiny slack so that 0.2 × 10 (which may come out as 1.9999999999999998) floors to 2, not 1.
    let slack = 1e-9
    var remainders: [(id: SignalID, remainder: Double, weight: Double)] = []
    var assigned = 0
    for (id, weight) in usable {
        let quota = Double(total) * weight / sum
        let whole = Int((quota + slack).rounded(.down))
        counts[id] = whole
        assigned += whole
        remainders.append((id, max(0, quota - Double(whole)), weight))
    }
    remainders.sort { a, b in
        if abs(a.remainder - b.remainder) > slack { return a.remainder > b.remainder }
        if a.weight != b.weight { return a.weight > b.weight }
        return a.id < b.id
    }
    // Floors never exceed the total, and at most one leftover per signal is needed; the modulo guards the
    // sum even if rounding slack ever pushed a floor up.
    var left = total - assigned
    var index = 0
    while left > 0, !remainders.isEmpty {
        let id = remainders[index % remainders.count].id
        counts[id, default: 0] += 1
        left -= 1
        index += 1
    }
    while left < 0, let id = remainders.last(where: { (counts[$0.id] ?? 0) > 0 })?.id {
        counts[id, default: 0] -= 1
        left += 1
    }
    return counts
}
