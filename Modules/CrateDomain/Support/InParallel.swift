import Foundation

/// Runs `jobs` at once (a task group: none outlives the call) and returns their results in the jobs'
/// order. Why one helper with a struct for the index: Swift 6.3's optimizer miscompiled task groups of
/// `(Int, Result<…>)` tuples awaited from an actor (release builds trapped on garbage indices; debug
/// was fine), and one place to get this right beats four.
public func inParallel<T: Sendable>(_ jobs: [@Sendable () async -> T]) async -> [T] {
    await withTaskGroup(of: Indexed<T>.self) { group in
        for (index, job) in jobs.enumerated() {
            group.addTask { Indexed(index: index, value: await job()) }
        }
        var results = [T?](repeating: nil, count: jobs.count)
        for await done in group { results[done.index] = done.value }
        return results.compactMap { $0 }
    }
}

/// A job's result and where it goes.
struct Indexed<T: Sendable>: Sendable {
    let index: Int
    let value: T
}
