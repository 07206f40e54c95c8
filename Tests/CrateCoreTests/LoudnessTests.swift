import CrateCore
import CrateDomain
import CrateLoudness
import CratePlugins
import CrateTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// Issue 17 item 5, loudness normalisation: the EBU R128 measurement against ffmpeg's `ebur128` filter, album values
/// against the concatenated album, the scan (both cores, what it skips, what it stores), and the gain the player
/// applies by mode, rendered through the engine into the WAV file output.
@Suite struct LoudnessTests {
    let fx: LibraryFixture

    init() throws {
        fx = try LibraryFixture("crate-loudness")
    }

    func decodeAll(_ runtime: CrateRuntime, _ url: URL) throws -> [Float] {
        try DecoderChecks.decodeAll(try runtime.decoders.open(url))
    }

    // MARK: - Measurement

    /// A generated −23 LUFS pink-noise track measures within 0.1 LU of `ffmpeg -af ebur128`, in every lossless
    /// container and after a lossy round trip (both measuring the same decoded audio is what is compared).
    @Test(arguments: [Fixture.Codec.flac, .wav, .vorbis])
    func pinkNoiseMeasuresLikeFFmpeg(codec: Fixture.Codec) throws {
        let pink = try LoudnessFixture.pinkNoise(at: -23, seconds: 20, to: fx.dir.appendingPathComponent("pink.flac"))
        let file = codec == .flac ? pink : fx.dir.appendingPathComponent("pink.\(codec.suffix)")
        if codec != .flac { try Fixture.encodeFile(pink, as: codec, to: file) }
        let reference = try LoudnessFixture.ffmpegEBUR128(file)
        let runtime = try fx.runtime()
        let meter = try LoudnessMeter.measure(try runtime.decoders.open(file))
        let integrated = try #require(meter.integrated)
        #expect(abs(integrated - reference.integrated) <= 0.1, "Crate \(integrated) LUFS, ffmpeg \(reference.integrated) LUFS")
        // Lossless, the level made is the level measured (a lossy encoder's low-pass takes some of the noise away).
        if codec != .vorbis { #expect(abs(integrated - -23) <= 0.2, "\(integrated) LUFS") }
        // True peaks: both oversample 4×, with different interpolation filters.
        #expect(abs(Loudness.decibels(meter.truePeak) - reference.truePeak) <= 0.5,
                "true peak \(Loudness.decibels(meter.truePeak)) vs \(reference.truePeak) dBFS")
        #expect(meter.samplePeak <= meter.truePeak && meter.samplePeak > 0)
        #expect(abs(meter.measurement.seconds - 20) < 0.01)
    }

    /// The album value (the tracks' meters gated together) equals measuring the album played end to end: Crate's
    /// meter on the concatenated file within 0.05 LU, ffmpeg's within 0.1 LU; and it lies between its tracks'.
    @Test func albumValueMatchesTheConcatenation() throws {
        let a = try LoudnessFixture.pinkNoise(at: -20, seconds: 12, to: fx.dir.appendingPathComponent("a.flac"))
        let b = try LoudnessFixture.pinkNoise(at: -30, seconds: 9, to: fx.dir.appendingPathComponent("b.flac"))
        let c = try LoudnessFixture.pinkNoise(at: -25, seconds: 5.3, to: fx.dir.appendingPathComponent("c.flac"))
        let joined = fx.dir.appendingPathComponent("album.flac")
        try Fixture.run("sox", [a.path, b.path, c.path, joined.path])
        let runtime = try fx.runtime()
        let decoders = runtime.decoders
        let outcomes = Mutex<[LoudnessScanOutcome]>([])
        LoudnessScanner(workers: 2) { try decoders.open($0) }.run([
            LoudnessScanGroup(albumID: 7, tracks: [a, b, c].enumerated().map { .init(id: Int64($0 + 1), url: $1) }),
        ]) { outcome in outcomes.withLock { $0.append(outcome) } }
        let all = outcomes.withLock { $0 }
        #expect(all.count == 4)
        guard case let .album(id, tracks, result)? = all.last else { Issue.record("no album outcome last: \(all)"); return }
        #expect(id == 7 && tracks == 3)
        let album = try #require(try result.get().integrated)
        let concatenated = try #require(try LoudnessMeter.measure(try decoders.open(joined)).integrated)
        let ffmpeg = try LoudnessFixture.ffmpegEBUR128(joined).integrated
        #expect(abs(album - concatenated) <= 0.05, "album \(album), concatenation \(concatenated) LUFS")
        #expect(abs(album - ffmpeg) <= 0.1, "album \(album), ffmpeg on the concatenation \(ffmpeg) LUFS")
        #expect(album > -30 && album < -20)
        #expect(abs(try result.get().seconds - 26.3) < 0.01)
    }

    /// Two tracks are measured at once: the first two decoders opened wait for each other (a barrier), which only
    /// completes when two workers run together.
    @Test func scanMeasuresTwoTracksAtOnce() throws {
        let files = try (1...4).map { n in
            try Fixture.encode(.flac, to: fx.dir.appendingPathComponent("\(n).flac"), frames: 44100)
        }
        let runtime = try fx.runtime()
        let decoders = runtime.decoders
        let barrier = Barrier(parties: 2)
        let met = Mutex(true)
        let done = Mutex(0)
        LoudnessScanner(workers: 2) { url in
            if url == files[0] || url == files[1] {
                let together = barrier.arrive(seconds: 60)
                met.withLock { $0 = $0 && together }
            }
            return try decoders.open(url)
        }.run([LoudnessScanGroup(albumID: nil, tracks: files.enumerated().map { .init(id: Int64($0), url: $1) })]) { outcome in
            if case .track(_, _, .success) = outcome { done.withLock { $0 += 1 } }
        }
        #expect(met.withLock { $0 }, "the first two tracks were not measured at the same time")
        #expect(done.withLock { $0 } == 4)
        // By default, one worker per core.
        #expect(LoudnessScanner(open: { try decoders.open($0) }).workers == max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    // MARK: - The scan over the library

    /// Two albums of pink noise at known levels, imported by reference.
    func library(_ levels: [String: [Double]], seconds: Double = 6,
                 beforeImport: (URL) throws -> Void = { _ in }) throws -> (CrateRuntime, [String: [Track]]) {
        for (album, tracks) in levels {
            let folder = fx.music.appendingPathComponent(album, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (n, lufs) in tracks.enumerated() {
                let raw = fx.dir.appendingPathComponent(".\(album)-\(n).flac")
                try LoudnessFixture.pinkNoise(at: lufs, seconds: seconds + Double(n) * 0.5, to: raw)
                try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", raw.path, "-c:a", "flac",
                                           "-metadata", "title=\(album) \(n + 1)", "-metadata", "artist=Noise",
                                           "-metadata", "album=\(album)", "-metadata", "track=\(n + 1)",
                                           folder.appendingPathComponent("0\(n + 1).flac").path])
            }
        }
        try beforeImport(fx.music)
        let runtime = try fx.runtime()
        _ = try runtime.library.importPaths([fx.music.path], mode: .reference)
        var tracks: [String: [Track]] = [:]
        for album in try runtime.collection.albums() { tracks[album.title] = try runtime.collection.tracks(albumID: album.id) }
        return (runtime, tracks)
    }

    @Test func scanStoresTrackAndAlbumValuesAndLeavesCurrentOnesAlone() throws {
        let (runtime, tracks) = try library(["Loud": [-16, -20], "Soft": [-28, -24]])
        let loudness = runtime.library.loudness
        let first = try loudness.scan(LoudnessScanRequest())
        #expect(first.tracksMeasured == 4 && first.albumsMeasured == 2 && first.failureCount == 0, "\(first)")
        #expect(first.workers == min(4, ProcessInfo.processInfo.activeProcessorCount))
        let summary = try loudness.summary()
        #expect(summary.tracksScanned == 4 && summary.albumsScanned == 2 && summary.tracksStale == 0)

        // The values: each track's gain is −18 − its loudness; the album's lies between its tracks'.
        let soft = try #require(tracks["Soft"])
        let values = try soft.map { try loudness.loudness(trackID: $0.id) }
        let gains = try values.map { try #require($0.track?.gain) }
        #expect(abs(gains[0] - 10) < 0.15 && abs(gains[1] - 6) < 0.15, "\(gains)")
        #expect(values[0].track?.origin == .scan && values[0].album?.origin == .scan)
        let albumGain = try #require(values[0].album?.gain)
        #expect(albumGain > 6 && albumGain < 10 && values[1].album?.gain == albumGain)
        let info = try loudness.album(id: soft[0].albumID)
        #expect(info.tracks.count == 2 && info.scan != nil && info.tracks.allSatisfy { $0.scan != nil && !$0.stale })

        // Again: nothing to do.
        let second = try loudness.scan(LoudnessScanRequest())
        #expect(second.tracksMeasured == 0 && second.albumsMeasured == 0 && second.tracksCurrent == 4 && second.albumsCurrent == 2)

        // A file changes (and the library notices at a rescan): its scan and its album's are stale.
        let changed = try #require(soft[1].path)
        let raw = fx.dir.appendingPathComponent(".changed.flac")
        try LoudnessFixture.pinkNoise(at: -14, seconds: 6.5, to: raw)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", raw.path, "-c:a", "flac",
                                   "-metadata", "title=Soft 2", "-metadata", "artist=Noise", "-metadata", "album=Soft",
                                   "-metadata", "track=2", changed])
        _ = try runtime.library.rescan()
        let stale = try loudness.summary()
        #expect(stale.tracksScanned == 3 && stale.tracksStale == 1 && stale.albumsScanned == 1)
        #expect(try loudness.loudness(trackID: soft[1].id).track == nil)
        #expect(try loudness.loudness(trackID: soft[0].id).album == nil)

        // That file alone: its track value, but not its album's (only part of the album was chosen)...
        let alone = try loudness.scan(LoudnessScanRequest(paths: [changed]))
        #expect(alone.tracksMeasured == 1 && alone.albumsMeasured == 0 && alone.albumsPartial == 1)
        let changedGain = try #require(try loudness.loudness(trackID: soft[1].id).track?.gain)
        #expect(abs(changedGain - -4) < 0.15, "\(changedGain)")
        #expect(try loudness.loudness(trackID: soft[0].id).album == nil)
        // ... and with --album, the whole album again; its folder would do the same.
        let whole = try loudness.scan(LoudnessScanRequest(paths: [changed], albums: true))
        #expect(whole.tracksMeasured == 2 && whole.albumsMeasured == 1 && whole.albums.first?.title == "Soft")
        #expect(try loudness.summary().albumsScanned == 2)
        let folder = try loudness.scan(LoudnessScanRequest(paths: [fx.music.appendingPathComponent("Soft").path], force: true))
        #expect(folder.tracksMeasured == 2 && folder.albumsMeasured == 1)

        // A path the library has nothing under.
        #expect(throws: LibraryError.self) { try loudness.scan(LoudnessScanRequest(paths: [fx.dir.appendingPathComponent("none").path])) }
    }

    /// Migration v11 marks reference imports' records stale so the next rescan reads their tags' gains: a library
    /// from before it has tagged files but no gains stored (made here by clearing them). An ordinary rescan opens
    /// nothing; after the migration's update the rescan reads both files again and updates them in place, nothing
    /// duplicated; the tags serve until a scan takes over.
    @Test func rescanAfterTheMigrationReadsTheTagsGains() throws {
        let (runtime, tracks) = try library(["Tagged": [-20, -26]], seconds: 2) { music in
            for (n, gain) in ["-2.00 dB", "+8.00 dB"].enumerated() {
                try Fixture.run("metaflac", ["--set-tag=REPLAYGAIN_TRACK_GAIN=\(gain)", "--set-tag=REPLAYGAIN_ALBUM_GAIN=+1.50 dB",
                                             "--set-tag=REPLAYGAIN_ALBUM_PEAK=0.25",
                                             music.appendingPathComponent("Tagged/0\(n + 1).flac").path])
            }
        }
        let tagged = try #require(tracks["Tagged"])
        let loudness = runtime.library.loudness
        #expect(try loudness.loudness(trackID: tagged[0].id).track == GainValue(gain: -2, peak: nil, origin: .tags))
        let database = try DatabaseQueue(path: fx.settings.databaseURL.path)
        try database.write { db in
            try db.execute(sql: "UPDATE track SET rg_track_gain = NULL, rg_track_peak = NULL, rg_album_gain = NULL, rg_album_peak = NULL")
        }
        _ = try runtime.library.rescan()
        #expect(try loudness.loudness(trackID: tagged[0].id) == TrackLoudness())
        // What the migration does to a library it upgrades.
        try database.write { db in
            try db.execute(sql: "UPDATE import_record SET mtime = -1 WHERE mode = 'reference' AND track_id IS NOT NULL")
        }
        let report = try runtime.library.rescan()
        #expect(report.updated == 2 && report.imported == 0 && report.duplicateCount == 0, "\(report)")
        let first = try loudness.loudness(trackID: tagged[0].id)
        #expect(first.track == GainValue(gain: -2, peak: nil, origin: .tags))
        #expect(first.album == GainValue(gain: 1.5, peak: 0.25, origin: .tags))
        #expect(try loudness.loudness(trackID: tagged[1].id).track?.gain == 8)
        #expect(try runtime.collection.tracks(albumID: tagged[0].albumID).map(\.id) == tagged.map(\.id))
        // A scan then takes over.
        _ = try loudness.scan(LoudnessScanRequest())
        #expect(try loudness.loudness(trackID: tagged[0].id).track?.origin == .scan)
    }

    // MARK: - The gain in the player

    /// Plays with the WAV file output (rendering, not keeping time) in `mode`, `play` starting the queue; returns
    /// the rendered samples once the player stopped.
    func render(_ runtime: CrateRuntime, mode: LoudnessMode, preamp: Double = 0, name: String,
                _ play: @escaping @Sendable (PlayerService) async throws -> Void) async throws -> [Float] {
        var settings = runtime.settings
        settings.loudness = LoudnessPolicy(mode: mode, preamp: preamp)
        let out = fx.dir.appendingPathComponent("\(name).wav")
        settings.setPluginValue("outputs.wav.path", out.path)
        settings.setPluginValue("outputs.wav.render", "true")
        let modeRuntime = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
        let player = try await PlayerService.start(runtime: modeRuntime, output: "wav")
        let events = player.events.subscribe()
        try await play(player)
        _ = try await withHangGuard("the player to stop after \(name)", seconds: 120) {
            for await event in events where event == .player(.state(.stopped)) { return true }
            return false
        }
        await player.shutdown()
        return try decodeAll(modeRuntime, out)
    }

    /// The level of `rendered` against `source`, dB, per track (the render holds the tracks back to back).
    func levels(_ rendered: [Float], sources: [[Float]]) -> [Double] {
        var at = 0
        return sources.map { source in
            defer { at += source.count }
            let part = rendered[min(at, rendered.count)..<min(at + source.count, rendered.count)]
            return Loudness.decibels(SignalAnalysis.rms(part) / SignalAnalysis.rms(source))
        }
    }

    /// track, album and auto change the rendered level by the gains the scan found, off leaves it; auto plays an
    /// album by its album gain and a mixed queue by track gains. In album mode the album renders sample-exact apart
    /// from the one constant gain: no ramp at the border.
    @Test(.promptly) func modesChangeTheRenderedLevelByTheExpectedGain() async throws {
        let (runtime, tracks) = try library(["Album": [-24, -30], "Single": [-27]], seconds: 4)
        _ = try runtime.library.loudness.scan(LoudnessScanRequest())
        let album = try #require(tracks["Album"]), single = try #require(tracks["Single"])
        let sources = try album.map { try decodeAll(runtime, URL(fileURLWithPath: try #require($0.path))) }
        let values = try album.map { try runtime.library.loudness.loudness(trackID: $0.id) }
        let trackGains = try values.map { try #require($0.track?.gain) }
        let albumGain = try #require(values[0].album?.gain)
        #expect(abs(trackGains[0] - 6) < 0.15 && abs(trackGains[1] - 12) < 0.15, "\(trackGains)")
        #expect(albumGain > 6 && albumGain < 12)
        let albumID = album[0].albumID

        func check(_ mode: LoudnessMode, _ expected: [Double]) async throws -> [Float] {
            let rendered = try await render(runtime, mode: mode, name: mode.rawValue) { try await $0.playAlbum(albumID) }
            #expect(rendered.count == sources.reduce(0) { $0 + $1.count })
            let measured = levels(rendered, sources: sources)
            for (got, want) in zip(measured, expected) {
                #expect(abs(got - want) < 0.01, "\(mode): rendered \(measured) dB, expected \(expected) dB")
            }
            return rendered
        }
        _ = try await check(.off, [0, 0])
        _ = try await check(.track, trackGains)
        let albumRender = try await check(.album, [albumGain, albumGain])
        _ = try await check(.auto, [albumGain, albumGain])

        // Album mode: every sample is the source times the one gain, across the border too.
        let g = Float(Loudness.linear(albumGain))
        let expected = sources.flatMap { $0 }.map { $0 * g }
        #expect(DecoderChecks.firstMismatch(albumRender, expected) == nil)

        // auto with a queue mixing albums: track gains.
        let singleSource = try decodeAll(runtime, URL(fileURLWithPath: try #require(single[0].path)))
        let singleGain = try #require(try runtime.library.loudness.loudness(trackID: single[0].id).track?.gain)
        let mixed = try await render(runtime, mode: .auto, name: "auto-mixed") { try await $0.playList([album[0].id, single[0].id]) }
        let mixedLevels = levels(mixed, sources: [sources[0], singleSource])
        #expect(abs(mixedLevels[0] - trackGains[0]) < 0.01 && abs(mixedLevels[1] - singleGain) < 0.01, "\(mixedLevels)")
    }

    /// Clipping prevention: a loud track with a pre-amp that would push its peak over full scale gets the gain that
    /// puts its true peak at full scale, and the render never exceeds it; the status says so.
    @Test(.promptly) func clippingPreventionKeepsThePeakAtFullScale() async throws {
        let (runtime, tracks) = try library(["Hot": [-12]], seconds: 4)
        _ = try runtime.library.loudness.scan(LoudnessScanRequest())
        let track = try #require(tracks["Hot"]?.first)
        let values = try runtime.library.loudness.loudness(trackID: track.id)
        let peak = try #require(values.track?.peak)
        let decision = LoudnessPolicy(mode: .track, preamp: 12).decide(values, inAlbumOrder: false)
        #expect(decision.clippingPrevented)
        #expect(abs(decision.gainDB - -Loudness.decibels(peak)) < 1e-9)
        #expect(Double(decision.linearGain) * peak <= 1.000001)
        let source = try decodeAll(runtime, URL(fileURLWithPath: try #require(track.path)))
        let rendered = try await render(runtime, mode: .track, preamp: 12, name: "hot") { try await $0.playList([track.id]) }
        #expect(rendered.map(abs).max() ?? 2 <= 1)
        #expect(abs(levels(rendered, sources: [source])[0] - decision.gainDB) < 0.01)
    }

    /// The status carries the gain of the playing track: mode, dB, which gain, from where.
    @Test(.promptly) func statusShowsTheAppliedGain() async throws {
        let (runtime, tracks) = try library(["Album": [-24, -30]], seconds: 4)
        _ = try runtime.library.loudness.scan(LoudnessScanRequest())
        let album = try #require(tracks["Album"])
        let albumGain = try #require(try runtime.library.loudness.loudness(trackID: album[0].id).album?.gain)
        // The null output keeping time: the first track is still playing when the status is read.
        var settings = runtime.settings
        settings.setPluginValue("outputs.null.render", "false")
        let timed = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
        let player = try await PlayerService.start(runtime: timed, output: "null")
        try await player.playAlbum(album[0].albumID)
        let status = try await player.status()
        #expect(status.entry?.track.id == album[0].id)
        let loudness = try #require(status.loudness)
        #expect(loudness.mode == .auto && loudness.source == .album && loudness.origin == .scan)
        #expect(abs(loudness.gainDB - albumGain) < 1e-9 && !loudness.clippingPrevented)
        await player.stop()
        await player.shutdown()
    }

    @Test func settingsReadModePreampAndClippingPrevention() async throws {
        func load(_ env: [String: String]) async throws -> Settings {
            try await SettingsLoader.load(environment: ["HOME": fx.dir.path].merging(env) { $1 }, plugins: CratePlugins.list)
        }
        let defaults = try await load([:]).loudness
        #expect(defaults == LoudnessPolicy(mode: .auto, preamp: 0, preventClipping: true))
        let set = try await load(["CRATE_PLAYER_REPLAYGAIN": "album", "CRATE_PLAYER_REPLAYGAIN_PREAMP": "-3.5",
                                  "CRATE_PLAYER_REPLAYGAIN_PREVENT_CLIPPING": "false"]).loudness
        #expect(set == LoudnessPolicy(mode: .album, preamp: -3.5, preventClipping: false))
        let mode = await #expect(throws: ConfigError.self) { try await load(["CRATE_PLAYER_REPLAYGAIN": "loud"]) }
        #expect(String(describing: mode).contains("off, track, album, auto"))
        await #expect(throws: ConfigError.self) { try await load(["CRATE_PLAYER_REPLAYGAIN_PREAMP": "20"]) }
    }
}

/// Two (or more) threads meet: each `arrive` returns once all have arrived, or false after `seconds` (a hang guard).
final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    func arrive(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date().addingTimeInterval(seconds)
        while arrived < parties {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}
