import CrateCore
import CratePlugins
import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import CrateStorage

@Suite struct RuntimeTests {
    let dir: URL
    init() throws { dir = try Fixture.temporaryDirectory("crate-runtime") }

    func settings() -> Settings {
        var s = Settings(dataDirectory: dir)
        // A PulseAudio server that cannot exist: the output must be listed unavailable, not stop start-up.
        s.setPluginValue("outputs.pulse.server", "unix:" + dir.appendingPathComponent("no-such-pulse-socket").path)
        return s
    }

    @Test func startsWithAnUnavailableOutputAndListsItsReason() throws {
        let runtime = try CrateRuntime(settings: settings(), plugins: CratePlugins.list)
        let plugins = runtime.pluginDescriptors()
        #expect(Set(plugins.map(\.kind)) == [.source, .decoder, .output, .encoder])
        #expect(plugins.filter { $0.kind == .encoder }.map(\.name) == ["ffmpeg"])
        #expect(plugins.filter { $0.kind == .decoder }.map(\.name) == ["flac", "vorbis", "opus", "mp3", "wav", "ffmpeg"])
        let pulse = try #require(plugins.first { $0.name == "pulse" })
        #expect(!pulse.available && !(pulse.reason ?? "").isEmpty)
        #expect(plugins.first { $0.name == "localfiles" }?.handles == ["file:"])
    }

    /// Without a sound server, auto plays through the null output, which keeps time (issue 17 item 1).
    @Test func autoOutputFallsBackToTheNullOutputWithoutPulse() throws {
        let runtime = try CrateRuntime(settings: settings(), plugins: CratePlugins.list)
        let (plugin, why) = try runtime.outputs.resolve("auto")
        #expect(plugin.name == "null" && why.contains("pulse"))
    }

    @Test func importsAFolderIntoTheDatabase() throws {
        let music = dir.appendingPathComponent("music/Band/Record")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for n in 1...3 {
            try Fixture.encode(.flac, to: music.appendingPathComponent("0\(n).flac"), frames: 4410,
                               tags: ["title": "Song \(n)", "artist": "Band", "album": "Record", "track": "\(n)/3"])
        }
        try Data().write(to: music.appendingPathComponent("04.flac"))
        let runtime = try CrateRuntime(settings: settings(), plugins: CratePlugins.list)
        let report = try runtime.library.importPaths([dir.appendingPathComponent("music").path], mode: .reference)
        #expect(report.imported == 3 && report.failures.count == 1)
        let album = try #require(try runtime.store.albums().first)
        #expect(album.title == "Record" && album.artist == "Band" && album.trackCount == 3)
        #expect(try runtime.store.scanFailures().map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["04.flac"])
        // Importing again changes nothing.
        let again = try runtime.library.importPaths([dir.appendingPathComponent("music").path])
        #expect(again.imported == 0 && again.unchanged == 3 && again.mode == .reference)
        #expect(try runtime.store.counts().tracks == 3)
    }
}

@Suite struct DecoderFallbackTests {
    /// `.ogg` is claimed by Vorbis first and Opus second: an Ogg Opus file with an `.ogg` name still plays.
    @Test func oggOpusFileNamedOggIsDecodedByOpus() throws {
        let dir = try Fixture.temporaryDirectory("crate-fallback")
        let file = try Fixture.encode(.opus, to: dir.appendingPathComponent("x.opus"), frames: 4800, sampleRate: 48000)
        let renamed = dir.appendingPathComponent("x.ogg")
        try FileManager.default.moveItem(at: file, to: renamed)
        let runtime = try CrateRuntime(settings: Settings(dataDirectory: dir), plugins: CratePlugins.list)
        #expect(runtime.decoders.candidates(forSuffix: "ogg").map(\.name) == ["vorbis", "opus"])
        let probe = try runtime.decoders.probe(renamed)
        #expect(probe.info.codec == "opus" && probe.info.frames == 4800)
    }
}
