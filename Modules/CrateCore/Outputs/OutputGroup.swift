import CrateDomain
import Foundation

/// Several outputs fed the same samples at once (issue 29): speakers and a stream, a WAV file and the null output.
/// The first enabled output that keeps time (a sound card, or a WAV/null output at the sample clock) sets the pace;
/// the others take each write as it comes. When no enabled output keeps time, the group keeps the sample clock
/// itself, so playback never runs faster than real time.
///
/// Each member is made from its plugin when it opens and let go when it closes, as the engine did with its one output.
/// A member that fails is set aside with its reason — the others go on — and is tried again at the next `open` (a new
/// track's format, a seek, a resume) or when written to after `retryDelay`. Only when every enabled member has failed
/// does the group's own call fail, which the engine handles as one output's failure (the player pauses and retries).
///
/// Owned by the playback thread like any output; `setEnabled` and `states` are called from other threads, hence
/// the lock around the members. `onChange` hears of a member failing, coming back or being switched.
final class OutputGroup: AudioOutput, @unchecked Sendable {
    struct Member {
        let plugin: any OutputPlugin
        var output: (any AudioOutput)?
        /// Open now. An output switched off is closed but kept, so switching it on again continues it (a WAV file
        /// goes on being written); one that failed, or that the group let go, is made afresh.
        var isOpen = false
        var enabled: Bool
        var failure: String?
        var failedAt: Date?
        /// Bumped at each change a client is told of (`OutputState.revision`).
        var revision = 0
        var name: String { plugin.name }
    }

    static let retryDelay: TimeInterval = 5

    private let lock = NSLock()
    private var members: [Member]
    private var format: PCMFormat?
    private var tags: NowPlayingTags?
    /// The pace when no enabled member keeps time.
    private var clock = SampleClock()
    private let onChange: @Sendable (OutputState) -> Void

    init(_ plugins: [any OutputPlugin], disabled: Set<String> = [], onChange: @escaping @Sendable (OutputState) -> Void = { _ in }) {
        members = plugins.map { Member(plugin: $0, enabled: !disabled.contains($0.name)) }
        self.onChange = onChange
    }

    var names: [String] { locked { members.map(\.name) } }
    var plugins: [any OutputPlugin] { locked { members.map(\.plugin) } }

    var destination: String {
        locked { members.filter(\.enabled).map { $0.output?.destination ?? $0.name } }.joined(separator: " + ")
    }

    /// The group keeps time itself when none of its enabled members does.
    var keepsTime: Bool { true }

    func states() -> [OutputState] { locked { members.map(Self.state) } }

    /// Turns a member on or off; nil when there is none of that name. An output turned off is closed at the next
    /// write; one turned on is opened there.
    @discardableResult
    func setEnabled(_ name: String, _ on: Bool) -> OutputState? {
        let changed = locked { () -> OutputState? in
            guard let index = members.firstIndex(where: { $0.name == name }) else { return nil }
            members[index].enabled = on
            members[index].failure = nil
            members[index].failedAt = nil
            members[index].revision += 1
            return Self.state(members[index])
        }
        if let changed { onChange(changed) }
        return changed
    }

    /// The enabled members' plugins, for the player's retry after the whole group failed.
    var enabledPlugins: [any OutputPlugin] { locked { members.filter(\.enabled).map(\.plugin) } }

    func open(_ format: PCMFormat) throws {
        self.format = format
        clock = SampleClock()
        for index in indexes() where locked({ members[index].enabled }) {
            // A new open is a fresh chance for a member that failed.
            open(index, format)
        }
        try requireOne()
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws {
        guard let format else { throw OutputError(output: "group", reason: "write before open") }
        var paced = false
        for index in indexes() {
            let member = locked { members[index] }
            if !member.enabled {
                if member.isOpen, let output = member.output {
                    output.close()
                    locked { members[index].isOpen = false }
                }
                continue
            }
            if !member.isOpen {
                // Turned on since, or failed a while ago: try again.
                if let failedAt = member.failedAt, Date().timeIntervalSince(failedAt) < Self.retryDelay { continue }
                open(index, format)
            }
            guard let output = locked({ members[index].isOpen ? members[index].output : nil }) else { continue }
            do {
                try output.write(samples)
                if output.keepsTime { paced = true }
            } catch {
                fail(index, error)
            }
        }
        try requireOne()
        if !paced { clock.wrote(frames: samples.count / max(1, format.channels), rate: format.sampleRate) }
    }

    func drain() throws {
        for index in indexes() {
            guard let output = locked({ members[index].isOpen ? members[index].output : nil }) else { continue }
            do { try output.drain() } catch { fail(index, error) }
        }
        clock.drain()
    }

    func close() {
        for index in indexes() {
            let output = locked { () -> (any AudioOutput)? in
                defer {
                    members[index].output = nil
                    members[index].isOpen = false
                }
                return members[index].isOpen ? members[index].output : nil
            }
            output?.close()
        }
        format = nil
    }

    /// Every open member flushes, or the group cannot (the engine then closes and opens it).
    func flush() -> Bool {
        var all = true
        for index in indexes() {
            guard let output = locked({ members[index].isOpen ? members[index].output : nil }) else { continue }
            if !output.flush() {
                output.close()
                locked {
                    members[index].output = nil
                    members[index].isOpen = false
                }
                all = false
            }
        }
        clock = SampleClock()
        return all
    }

    func nowPlaying(_ tags: NowPlayingTags) {
        self.tags = tags
        for index in indexes() { locked { members[index].isOpen ? members[index].output : nil }?.nowPlaying(tags) }
    }

    // MARK: Members

    private func open(_ index: Int, _ format: PCMFormat) {
        let (plugin, existing, wasFailing) = locked { (members[index].plugin, members[index].output, members[index].failure != nil) }
        do {
            let output = try existing ?? plugin.makeOutput()
            locked { members[index].output = output }
            try output.open(format)
            if let tags { output.nowPlaying(tags) }
            let back = locked { () -> OutputState? in
                members[index].isOpen = true
                members[index].failure = nil
                members[index].failedAt = nil
                guard wasFailing else { return nil }
                members[index].revision += 1
                return Self.state(members[index])
            }
            if let back { onChange(back) }
        } catch {
            fail(index, error)
        }
    }

    /// Sets member `index` aside, closed, with its reason; it is tried again after `retryDelay`.
    private func fail(_ index: Int, _ error: any Error) {
        let (output, state, first) = locked { () -> ((any AudioOutput)?, OutputState, Bool) in
            let output = members[index].isOpen ? members[index].output : nil
            let first = members[index].failure == nil
            members[index].output = nil
            members[index].isOpen = false
            members[index].failure = Self.reason(error)
            members[index].failedAt = Date()
            if first { members[index].revision += 1 }
            return (output, Self.state(members[index]), first)
        }
        output?.close()
        if first { onChange(state) }
    }

    /// Fails when no enabled member is working: the engine then treats the group as one failed output.
    private func requireOne() throws {
        let (working, enabled, failures) = locked {
            (members.contains { $0.enabled && $0.isOpen }, members.filter(\.enabled).count,
             members.filter(\.enabled).compactMap { m in m.failure })
        }
        // Every output turned off: the music goes on at the sample clock, heard by nobody (as MPD with no output).
        guard !working, enabled > 0 else { return }
        throw OutputError(output: enabled == 1 ? (enabledPlugins.first?.name ?? "output") : "every output",
                          reason: failures.joined(separator: "; "))
    }

    /// An output's own error message without the "output NAME:" prefix the state already names.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? OutputError { return error.reason }
        return ErrorText.describe(error)
    }

    private static func state(_ m: Member) -> OutputState {
        let broadcast = (m.plugin as? any BroadcastOutput)?.broadcast
        return OutputState(name: m.name, destination: m.output?.destination, enabled: m.enabled, isDevice: m.plugin.isDevice,
                           error: m.failure, listenPath: broadcast?.path, listeners: broadcast?.listenerCount, revision: m.revision)
    }

    private func indexes() -> Range<Int> { locked { members.indices } }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
