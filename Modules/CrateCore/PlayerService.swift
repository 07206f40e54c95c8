import CrateAudio
public import CrateDomain
import CrateStorage
import Foundation
import Logging

/// The daemon's one player: owns the queue rules, the modes and their persistence, and drives the
/// `PlaybackEngine`. Every command and every engine event runs on this actor, in order.
public actor PlayerService {
    public static let previousRestartSeconds = 4.0

    let runtime: CrateRuntime
    let engine: PlaybackEngine
    /// The outputs the engine plays through, all at once, each switched on and off while playing
    /// (PlayerService+Outputs.swift); tried again after a failure (PlayerService+Output.swift).
    let outputs: OutputGroup
    /// What the stream outputs broadcast, for the front ends that serve them (`/stream.opus`).
    public nonisolated let broadcasts: [Broadcast]
    public nonisolated let events: EventBus
    var store: LibraryStore { runtime.store }
    var logger: Logger { runtime.logger }

    var state: PlaybackState = .stopped
    var current: QueueEntry?
    /// The stream item whose play was counted (a stream counts when its sound starts; resuming does not count again).
    var countedStreamToken: UInt64?
    var currentToken: UInt64?
    var format: StreamInfo?
    var modes = PlayerModes()
    /// Where playback stands when the engine is not playing (paused, stopped, restored).
    var heldElapsed = 0.0
    var lastSkip: SkipNotice?
    /// Goes up with every change of the queue, before its event is published, so a front end that reads it after
    /// a change it made sees the change (MPD's playlist version; an event reaches the front ends later).
    public private(set) var queueVersion = 1
    /// Who waits for an item's first sound or its failure (`playURL(_:waitSeconds:)`), by the item's token.
    var soundWaiters: [UInt64: CheckedContinuation<SoundOutcome, Never>] = [:]
    /// The newest in-band title of each stream track played (internet radio), for status.
    var streamTitles: [Int64: String] = [:]
    /// With stop-after-album or stop-after-track: the entry where playback waits (the next album's first track,
    /// or the next track), and how (paused at an album's border, stopped after a track, as MPD's `single`).
    var border: (entry: QueueEntry, state: PlaybackState)?
    /// The entry handed to the engine to follow the current one (gapless), for `upcomingEntry()`.
    var upcoming: QueueEntry?
    /// Entry ids by token for items handed to the engine.
    var handed: [UInt64: QueueEntry] = [:]
    /// The loudness gain chosen for each item handed to the engine (PlayerService+Loudness.swift).
    var applied: [UInt64: LoudnessDecision] = [:]
    var nextToken: UInt64 = 1
    /// The output's trouble, while it lasts, and the task that tries it again.
    var outputError: OutputErrorNotice?
    var outputRetry: Task<Void, Never>?
    var outputAttempt = 0
    var random = SystemRandomNumberGenerator()
    private var eventTask: Task<Void, Never>?
    private var outputTask: Task<Void, Never>?
    private var saveTask: Task<Void, Never>?

    /// Builds the player on `runtime`'s configured output and restores the saved queue pointer,
    /// position, modes and volume, paused.
    ///
    /// An output that cannot be reached now (the sound server is not up yet, under systemd) does not stop the
    /// player: it starts with `outputError` set and tries the output again until it works.
    public static func start(runtime: CrateRuntime, output: String? = nil) async throws -> PlayerService {
        let choice = output ?? runtime.settings.output
        var plugins: [any OutputPlugin] = []
        var unavailable: [String] = []
        let names = Settings.outputNames(choice)
        for name in names.isEmpty ? [OutputRegistry.auto] : names {
            let plugin: any OutputPlugin
            do {
                let (resolved, why) = try runtime.outputs.resolve(name)
                runtime.logger.info("\(why)")
                plugin = resolved
            } catch RegistryError.outputUnavailable(let name, let reason) {
                guard let named = runtime.outputs.plugins.first(where: { $0.name == name }) else {
                    throw RegistryError.outputUnavailable(name: name, reason: reason)
                }
                plugin = named
                unavailable.append(reason)
            }
            // `auto` may name an output listed as well.
            if !plugins.contains(where: { $0.name == plugin.name }) { plugins.append(plugin) }
        }
        let (changes, sink) = AsyncStream.makeStream(of: OutputState.self)
        let group = OutputGroup(plugins, disabled: disabledOutputs(runtime.store)) { sink.yield($0) }
        let engine = PlaybackEngine(decoders: runtime.decoders, inputs: runtime.inputs) { group }
        let player = PlayerService(runtime: runtime, engine: engine, outputs: group, events: runtime.events)
        await player.restore()
        await player.listen(outputChanges: changes)
        if unavailable.count == plugins.count, !unavailable.isEmpty {
            await player.outputUnavailableAtStart(unavailable.joined(separator: "; "))
        }
        return player
    }

    init(runtime: CrateRuntime, engine: PlaybackEngine, outputs: OutputGroup, events: EventBus) {
        self.runtime = runtime
        self.engine = engine
        self.outputs = outputs
        broadcasts = outputs.plugins.compactMap { ($0 as? any BroadcastOutput)?.broadcast }
        self.events = events
    }

    /// Saves state and stops the engine's threads.
    public func shutdown() {
        save()
        eventTask?.cancel()
        outputTask?.cancel()
        saveTask?.cancel()
        outputRetry?.cancel()
        engine.shutdown()
        for broadcast in broadcasts { broadcast.finish() }
    }

    // MARK: - Status

    public func status() throws -> PlayerStatus {
        let view = try store.playerView(entryID: current?.id)
        var status = PlayerStatus(state: state, entry: view.entry, elapsed: elapsed(),
                     duration: current?.track.duration, format: format ?? current?.track.info, modes: modes,
                     queueLength: view.queueLength, lastSkip: lastSkip,
                     streamTitle: current.flatMap { streamTitles[$0.track.id] }, outputError: outputError,
                     loudness: try currentLoudness(entry: view.entry))
        markPreview(&status, album: view.previewAlbum)   // a catalog song's preview says so (PlayerService+Previews.swift)
        return status
    }

    func elapsed() -> Double {
        if state == .playing, let p = engine.position(), p.item.token == currentToken, p.info.sampleRate > 0 {
            return Double(p.frame) / Double(p.info.sampleRate)
        }
        return heldElapsed
    }

    // MARK: - Transport

    /// Plays queue entry `index` (1-based) from its start; without an index, resumes or starts
    /// where the pointer is (the first entry when there is none).
    public func play(index: Int? = nil) throws {
        if let index {
            guard let entry = try store.queueEntry(at: index) else {
                throw PlayerError.noSuchEntry(index: index, count: try store.queueCount())
            }
            return try start(entry, at: 0)
        }
        if state == .paused, engine.position()?.item.token == currentToken, currentToken != nil {
            engine.resume()
            return setState(.playing)
        }
        if state == .playing { return }
        if let current, let fresh = try store.queueEntry(id: current.id) { return try start(fresh, at: heldElapsed) }
        guard let first = try store.queueEntry(at: 1) else { throw PlayerError.emptyQueue }
        try start(first, at: 0)
    }

    public func pause() {
        outputError?.willResume = false   // the listener's pause wins over resuming when the output is back
        guard state == .playing else { return }
        heldElapsed = elapsed()
        engine.pause()
        setState(.paused)
    }

    public func toggle() throws {
        if state == .playing { pause() } else { try play() }
    }

    public func stop() {
        outputError?.willResume = false
        engine.stop()
        // As in `start`: an engine event still on its way about what was handed (the `started` of a `play` just
        // before) must not make it current, and the player playing, again (the MPD differential test saw `play 2`,
        // `stop`, then `status` answer "state: play").
        handed.removeAll()
        currentToken = nil
        heldElapsed = 0
        setState(.stopped)
    }

    /// The next entry by the modes (repeat one does not hold `next` back); at the end, stops.
    public func next() throws {
        guard let current else { throw PlayerError.nothingPlaying }
        if let entry = try following(current, manual: true) { try start(entry, at: 0) } else { stop() }
    }

    /// Past 4 seconds, back to the start of the track; otherwise the previous entry.
    public func previous() throws {
        guard let current else { throw PlayerError.nothingPlaying }
        if elapsed() > Self.previousRestartSeconds { return try seek(to: 0) }
        if let entry = try store.queueNeighbour(of: current.id, direction: -1)
            ?? (modes.repeatMode == .all ? try store.queueEntry(at: try store.queueCount()) : nil) {
            try start(entry, at: 0)
        } else {
            try seek(to: 0)
        }
    }

    /// Seeks within the current track; `relative` adds to the current position.
    public func seek(to seconds: Double, relative: Bool = false) throws {
        guard let current else { throw PlayerError.nothingPlaying }
        let target = max(0, min(relative ? elapsed() + seconds : seconds, current.track.duration))
        if state == .playing || (state == .paused && engine.position() != nil) {
            let rate = Double(format?.sampleRate ?? current.track.info.sampleRate)
            engine.seek(toFrame: Int64(target * rate))
        }
        heldElapsed = target
        publish(.player(.seek(seconds: target)))
        save()
    }

    /// Software volume 0–100; `relative` adds to the current value.
    public func setVolume(_ value: Int, relative: Bool = false) {
        modes.volume = min(max(relative ? modes.volume + value : value, 0), 100)
        engine.setVolume(modes.volume)
        publish(.mixer(volume: modes.volume))
        save()
    }

    public func setRepeat(_ mode: RepeatMode) throws {
        modes.repeatMode = mode
        try optionsChanged()
    }

    public func setShuffle(_ on: Bool) throws {
        modes.shuffle = on
        try optionsChanged()
    }

    public func setStopAfterAlbum(_ on: Bool) throws {
        modes.stopAfterAlbum = on
        try optionsChanged()
    }

    public func setStopAfterTrack(_ mode: StopAfterTrack) throws {
        modes.stopAfterTrack = mode
        try optionsChanged()
    }

    func optionsChanged() throws {
        publish(.options(.modes(modes)))
        try refreshNext()
        save()
    }

    // MARK: - Internals

    /// Hands `entry` to the engine from `seconds`, and tells it what follows.
    func start(_ entry: QueueEntry, at seconds: Double) throws {
        guard let item = try engineItem(for: entry, at: seconds) else {
            // Not even locatable: flagged and skipped like a missing file.
            if let after = try following(entry, manual: true) { return try start(after, at: 0) }
            return stop()
        }
        border = nil
        // What was handed before is replaced: an engine event about it still on its way (a `started` of the track a
        // `next` began, reaching us after the `previous` that followed) must not make it current again.
        handed = handed.filter { $0.key == item.token }
        for (token, waiter) in soundWaiters where token != item.token {
            waiter.resume(returning: .failed("another play command replaced it"))
            soundWaiters.removeValue(forKey: token)
        }
        current = entry
        currentToken = item.token
        heldElapsed = seconds
        format = entry.track.info
        engine.setVolume(modes.volume)
        engine.play(item)
        setState(.playing)
        try handNext(after: entry, token: item.token)
    }

    /// Tells the engine what follows the entry handed over as `token`.
    func handNext(after entry: QueueEntry, token: UInt64) throws {
        var next = try following(entry, manual: false)
        if let candidate = next, modes.stopAfterTrack != .off, modes.repeatMode != .one {
            // Stop after the track: the engine runs out at its end; `.idle` then stops at the next entry.
            border = (candidate, .stopped)
            next = nil
        } else if let candidate = next, modes.stopAfterAlbum, candidate.track.albumID != entry.track.albumID {
            // Stop after the album: the engine runs out at the border; `.idle` then pauses there.
            border = (candidate, .paused)
            next = nil
        }
        let item = try next.flatMap { try engineItem(for: $0, at: 0) }
        upcoming = item == nil ? nil : next
        engine.setNext(item, after: token)
    }

    /// The entry that plays after the current one, as handed to the engine (MPD's `nextsong`), or where playback will
    /// wait after it (stop after the track or album); nil when stopped.
    public func upcomingEntry() throws -> QueueEntry? {
        guard state != .stopped, let next = upcoming ?? border?.entry else { return nil }
        return try store.queueEntry(id: next.id)
    }

    /// What plays after the current entry under the modes (MPD's `nextsong`): while playing or paused, the entry handed
    /// to the engine; when stopped, the one that would follow (itself with repeat one, wrapping with repeat all).
    public func nextEntry() throws -> QueueEntry? {
        guard let current, let entry = try store.queueEntry(id: current.id) else { return nil }
        if state != .stopped { return try upcomingEntry() }
        if modes.repeatMode == .one { return entry }
        if let next = try store.queueNeighbour(of: entry.id, direction: 1) { return next }
        return modes.repeatMode == .all ? try store.queueEntry(at: 1) : nil
    }

    /// After a queue or mode change: what follows the current entry may have changed.
    func refreshNext() throws {
        guard state != .stopped, let current, let token = currentToken,
              let fresh = try store.queueEntry(id: current.id) else { return }
        border = nil
        try handNext(after: fresh, token: token)
    }

    /// The entry that plays after `entry`: the same one for repeat one (unless skipping by hand),
    /// a random one with shuffle (never inside an album started with play-album), else the next in
    /// order, wrapping with repeat all.
    func following(_ entry: QueueEntry, manual: Bool) throws -> QueueEntry? {
        if modes.repeatMode == .one && !manual { return try store.queueEntry(id: entry.id) }
        let count = try store.queueCount()
        if modes.shuffle && !entry.albumLock && count > 1 {
            var index = Int.random(in: 1...count, using: &random)
            if index == entry.index { index = index % count + 1 }
            return try store.queueEntry(at: index)
        }
        if let next = try store.queueNeighbour(of: entry.id, direction: 1) { return next }
        return modes.repeatMode == .all ? try store.queueEntry(at: 1) : nil
    }

    func engineItem(for entry: QueueEntry, at seconds: Double) throws -> EngineItem? {
        let url: URL
        var live = false
        do {
            switch try runtime.sources.locate(entry.track.ref) {
            case .file(let fileURL): url = fileURL
            case .stream(let streamURL):
                url = streamURL
                live = true
            }
        } catch {
            try flagSkip(entry.track, reason: ErrorText.describe(error), missing: .invalidURI)
            return nil
        }
        let token = nextToken
        nextToken += 1
        handed[token] = entry
        // The item's loudness gain, fixed for the item: the engine applies it from its first sample to its last.
        let decision = loudnessDecisionOrNone(for: entry)
        applied[token] = decision
        // A stream starts where it is now; a file where it was left.
        let frame = live ? 0 : Int64(seconds * Double(entry.track.info.sampleRate))
        let track = entry.track
        let tags = NowPlayingTags(title: track.title, artist: track.artist.isEmpty ? nil : track.artist,
                                  album: track.album.isEmpty ? nil : track.album)
        return EngineItem(token: token, entryID: entry.id, trackID: entry.track.id, url: url, startFrame: frame,
                          gain: decision.linearGain, tags: tags)
    }

    func setState(_ new: PlaybackState) {
        state = new
        publish(.player(.state(new)))
        save()
    }

    func publish(_ event: CrateEvent) {
        if case .queue = event { queueVersion += 1 }
        events.publish(event)
    }

    /// Saves the pointer, position, modes and volume, and the current track's position.
    func save() {
        let snapshot = PlayerSnapshot(currentEntryID: current?.id, elapsed: state == .stopped ? 0 : elapsed(), modes: modes)
        do {
            let position = state == .stopped ? nil : current.map { (trackID: $0.track.id, seconds: snapshot.elapsed) }
            try store.savePlayerSnapshot(snapshot, trackPosition: position)
        } catch {
            logger.error("cannot save the player state: \(ErrorText.describe(error))")
        }
    }

    func restore() {
        do {
            if let snapshot = try store.playerSnapshot() {
                modes = snapshot.modes
                if let id = snapshot.currentEntryID, let entry = try store.queueEntry(id: id) {
                    current = entry
                    heldElapsed = snapshot.elapsed
                    state = .paused
                }
            }
        } catch {
            logger.error("cannot restore the player state: \(ErrorText.describe(error))")
        }
        engine.setVolume(modes.volume)
    }

    private func listen(outputChanges: AsyncStream<OutputState>) {
        let stream = engine.events
        eventTask = Task { [weak self] in
            for await event in stream { await self?.handle(event) }
        }
        outputTask = Task { [weak self] in
            for await change in outputChanges { await self?.outputChanged(change) }
        }
        // While playing, the position is saved every 5 seconds for resuming after a crash or restart.
        saveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                await self?.savePeriodically()
            }
        }
    }

    private func savePeriodically() {
        if state == .playing { save() }
    }
}
