import CrateDomain
import Foundation

/// Several outputs fed the same samples at once (issue 29): speakers and a stream, a WAV file and the null output.
/// The first enabled output that keeps time (a sound card, or a WAV/null output at the sample clock) sets the pace;
/// the others take each write as it comes. When no enabled output keeps time, the group keeps the sample clock
/// itself, so playback never runs faster than real time.
///
/// A member that fails is set aside with its reason — the others go on — and is opened again at the next `open`
/// (a new track's format, a seek, a resume) or when written to after `retryDelay`. Only when every enabled member
/// has failed does the group's own call fail, which the engine handles as one output's failure.
///
/// Owned by the playback thread like any output; `setEnabled` and `states` are called from other threads, hence
/// the lock around the members.
final class OutputGroup: AudioOutput {
    struct Member {
        let name: String
        let output: any AudioOutput
        var enabled: Bool
        var isOpen = false
        var failure: String?
        var failedAt: Date?
    }

    /// How an output of the group is doing, for clients (`GET outputs`).
    struct State: Sendable, Equatable {
        var name: String
        var destination: String
        var enabled: Bool
        var failure: String?
    }

    static let retryDelay: TimeInterval = 5

    private let lock = NSLock()
    private var members: [Member]
    private var format: PCMFormat?
    /// The pace when no enabled member keeps time.
    private var clock = SampleClock()

    init(_ outputs: [(name: String, output: any AudioOutput, enabled: Bool)]) {
        members = outputs.map { Member(name: $0.name, output: $0.output, enabled: $0.enabled) }
    }

    var destination: String {
        locked { members.filter(\.enabled).map(\.output.destination) }.joined(separator: " + ")
    }

    /// The group keeps time itself when none of its enabled members does.
    var keepsTime: Bool { true }

    func states() -> [State] {
        locked { members.map { State(name: $0.name, destination: $0.output.destination, enabled: $0.enabled, failure: $0.failure) } }
    }

    /// Turns a member on or off; false when there is none of that name. An output turned off is closed at the next
    /// write; one turned on is opened there.
    @discardableResult
    func setEnabled(_ name: String, _ on: Bool) -> Bool {
        locked {
            guard let index = members.firstIndex(where: { $0.name == name }) else { return false }
            members[index].enabled = on
            if on { members[index].failure = nil }
            return true
        }
    }

    func open(_ format: PCMFormat) throws {
        self.format = format
        clock = SampleClock()
        for index in indexes() {
            locked { members[index].failure = nil }
            try attempt(index) { output, member in
                try output.open(format)
                member.isOpen = true
            }
        }
        try requireOne()
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let format else { throw OutputError(output: "group", reason: "write before open") }
        var paced = false
        for index in indexes() {
            let (output, member) = locked { (members[index].output, members[index]) }
            if !member.enabled {
                if member.isOpen { output.close(); locked { members[index].isOpen = false } }
                continue
            }
            if !member.isOpen {
                // Turned on since, or failed a while ago: try again.
                if let failedAt = member.failedAt, Date().timeIntervalSince(failedAt) < Self.retryDelay { continue }
                try attempt(index) { output, member in
                    try output.open(format)
                    member.isOpen = true
                }
                guard locked({ members[index].isOpen }) else { continue }
            }
            try attempt(index) { output, _ in try output.write(samples) }
            if locked({ members[index].isOpen }), output.keepsTime { paced = true }
        }
        try requireOne()
        if !paced { clock.wrote(frames: samples.count / max(1, format.channels), rate: format.sampleRate) }
    }

    func drain() throws {
        for index in indexes() where locked({ members[index].isOpen }) {
            try attempt(index) { output, _ in try output.drain() }
        }
        clock.drain()
    }

    func close() {
        for index in indexes() {
            let (output, open) = locked { (members[index].output, members[index].isOpen) }
            if open { output.close() }
            locked { members[index].isOpen = false }
        }
    }

    /// Every open member flushes, or the group cannot (the engine then closes and opens it).
    func flush() -> Bool {
        var all = true
        for index in indexes() where locked({ members[index].isOpen }) {
            let output = locked { members[index].output }
            if !output.flush() {
                output.close()
                locked { members[index].isOpen = false }
                all = false
            }
        }
        clock = SampleClock()
        return all
    }

    // MARK: Failures

    /// Runs `body` on member `index`; an error sets the member aside (closed, with its reason) instead of throwing.
    private func attempt(_ index: Int, _ body: (any AudioOutput, inout Member) throws -> Void) throws {
        var member = locked { members[index] }
        do {
            try body(member.output, &member)
            locked {
                members[index].isOpen = member.isOpen
            }
        } catch {
            if member.isOpen { member.output.close() }
            locked {
                members[index].isOpen = false
                members[index].failure = ErrorText.describe(error)
                members[index].failedAt = Date()
            }
        }
    }

    /// Fails when no enabled member is working: the engine then treats the group as one failed output.
    private func requireOne() throws {
        let (working, failures) = locked {
            (members.contains { $0.enabled && $0.isOpen }, members.filter(\.enabled).compactMap { m in m.failure.map { "\(m.name): \($0)" } })
        }
        guard !working else { return }
        let enabledCount = locked { members.filter(\.enabled).count }
        // Every output turned off: the music goes on at the sample clock, heard by nobody (as MPD with no output).
        guard enabledCount > 0 else { return }
        throw OutputError(output: "group", reason: failures.joined(separator: "; "))
    }

    private func indexes() -> Range<Int> { locked { members.indices } }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
