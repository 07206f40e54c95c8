/// One slot per item of a concurrent loop (a folder's probes, a page of the missing check). Unchecked Sendable is
/// sound here: each index is written by exactly one iteration, and `values` is read only after every iteration has
/// ended (`concurrentPerform` returned, or the dispatch group was waited for). The buffer is allocated once, so
/// concurrent writes to distinct indices never touch shared array state.
final class Slots<T>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: T) { storage[index] = value }

    var values: [T?] { Array(storage) }
}
