import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// Small in-test plugins: the registries' rules are about names and status, not audio.
private struct FakeSource: SourcePlugin {
    var name: String
    var schemes: [String]
    var status: PluginStatus = .available
    func locate(_ ref: TrackRef) throws -> PlayableLocation { .file(URL(fileURLWithPath: ref.id)) }
}

private struct FakeDecoder: DecoderPlugin {
    var name: String
    var suffixes: [String]
    var mimeTypes: [String] = []
    var status: PluginStatus = .available
    var fails = false
    func probe(_ url: URL) throws -> ProbedFile {
        if fails { throw DecodeError(url: url, reason: "\(name) cannot read it") }
        return ProbedFile(tags: TrackTags(title: name), info: StreamInfo(codec: name, sampleRate: 44100, channels: 2))
    }
    func open(_ url: URL) throws -> any AudioDecoder { throw DecodeError(url: url, reason: "not in this test") }
}

/// Which decoders had their status asked, in order.
private final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [String] = []
    var names: [String] { lock.withLock { asked } }
    func note(_ name: String) { lock.withLock { asked.append(name) } }
}

private struct CountingDecoder: DecoderPlugin {
    var name: String
    var suffixes: [String]
    var mimeTypes: [String] = []
    var magic: String
    var log: StatusLog
    var status: PluginStatus {
        log.note(name)
        return .available
    }
    func recognizes(head: Data) -> Bool { head.starts(with: Data(magic.utf8)) }
    func probe(_ url: URL) throws -> ProbedFile { throw DecodeError(url: url, reason: "not in this test") }
    func open(_ url: URL) throws -> any AudioDecoder { throw DecodeError(url: url, reason: "not in this test") }
    func open(stream: any ByteStream) throws -> any AudioDecoder { throw DecodeError(path: stream.name, reason: "not in this test") }
}

private struct FakeOutput: OutputPlugin {
    var name: String
    var status: PluginStatus
    func checkStatus() -> PluginStatus { status }
    func makeOutput() throws -> any AudioOutput { throw OutputError(output: name, reason: "not in this test") }
}

@Suite struct SourceRegistryTests {
    @Test func duplicateSchemeIsRefusedNamingBoth() {
        let error = #expect(throws: RegistryError.self) {
            try SourceRegistry([FakeSource(name: "localfiles", schemes: ["file"]),
                                FakeSource(name: "otherfiles", schemes: ["FILE"])])
        }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains("localfiles") && text.contains("otherfiles") && text.contains("file:"))
    }

    @Test func unavailableSourceIsListedAndLookupSaysWhy() throws {
        let registry = try SourceRegistry([FakeSource(name: "localfiles", schemes: ["file"]),
                                           FakeSource(name: "catalog", schemes: ["applemusic"],
                                                      status: .unavailable(reason: "no credentials configured"))])
        let listed = registry.descriptors.first { $0.name == "catalog" }
        #expect(listed?.available == false)
        #expect(listed?.reason == "no credentials configured")
        #expect(throws: RegistryError.sourceUnavailable(name: "catalog", reason: "no credentials configured")) {
            try registry.plugin(forScheme: "applemusic")
        }
        #expect(try registry.plugin(forScheme: "file").name == "localfiles")
        #expect(throws: RegistryError.noSource(scheme: "http")) { try registry.plugin(forScheme: "http") }
    }
}

@Suite struct DecoderRegistryTests {
    let plugins: [any DecoderPlugin] = [
        FakeDecoder(name: "mpg123", suffixes: ["mp3"]),
        FakeDecoder(name: "ffmpeg", suffixes: ["mp3", "flac"]),
        FakeDecoder(name: "broken", suffixes: ["flac"], status: .unavailable(reason: "libFLAC missing")),
    ]

    @Test func registrationOrderIsTheDefaultPriority() throws {
        let registry = try DecoderRegistry(plugins)
        #expect(registry.candidates(forSuffix: "MP3").map(\.name) == ["mpg123", "ffmpeg"])
    }

    @Test func configuredOrderComesFirst() throws {
        let registry = try DecoderRegistry(plugins, order: ["ffmpeg"])
        #expect(registry.candidates(forSuffix: "mp3").map(\.name) == ["ffmpeg", "mpg123"])
    }

    @Test func unavailableDecodersAreSkippedButListed() throws {
        let registry = try DecoderRegistry(plugins)
        #expect(registry.candidates(forSuffix: "flac").map(\.name) == ["ffmpeg"])
        #expect(registry.descriptors.first { $0.name == "broken" }?.reason == "libFLAC missing")
    }

    /// A file only an unavailable decoder claims is still listed by a scan (its suffix is claimed) and fails with
    /// why that decoder cannot run, instead of passing for a file that is not music.
    @Test func aFileOnlyAnUnavailableDecoderClaimsFailsSayingWhy() throws {
        let registry = try DecoderRegistry([FakeDecoder(name: "mpg123", suffixes: ["mp3"]),
                                            FakeDecoder(name: "ffmpeg", suffixes: ["m4a"], status: .unavailable(reason: "libavformat.so.59 missing"))])
        #expect(registry.suffixes.contains("m4a"))
        #expect(throws: DecodeError(path: "/x.m4a", reason: "the ffmpeg decoder, which reads '.m4a' files, is unavailable: libavformat.so.59 missing")) {
            try registry.probe(URL(fileURLWithPath: "/x.m4a"))
        }
    }

    @Test func disabledDecodersAreLeftOut() throws {
        let registry = try DecoderRegistry(plugins, disabled: ["mpg123"])
        #expect(registry.candidates(forSuffix: "mp3").map(\.name) == ["ffmpeg"])
    }

    @Test func unknownNameInOrderIsAnErrorListingKnownNames() {
        let error = #expect(throws: RegistryError.self) { try DecoderRegistry(plugins, order: ["mad"]) }
        #expect(String(describing: error).contains("mpg123, ffmpeg, broken"))
    }

    @Test func probeFallsBackToTheNextDecoder() throws {
        let registry = try DecoderRegistry([FakeDecoder(name: "first", suffixes: ["mp3"], fails: true),
                                            FakeDecoder(name: "second", suffixes: ["mp3"])])
        #expect(try registry.probe(URL(fileURLWithPath: "/x.mp3")).tags.title == "second")
    }

    @Test func whenAllFailTheFirstErrorIsReported() throws {
        let registry = try DecoderRegistry([FakeDecoder(name: "first", suffixes: ["mp3"], fails: true),
                                            FakeDecoder(name: "second", suffixes: ["mp3"], fails: true)])
        #expect(throws: DecodeError(path: "/x.mp3", reason: "first cannot read it")) {
            try registry.probe(URL(fileURLWithPath: "/x.mp3"))
        }
    }

    @Test func noDecoderForSuffix() throws {
        let registry = try DecoderRegistry(plugins)
        #expect(throws: RegistryError.noDecoder(path: "/a.xyz", suffix: "xyz")) {
            try registry.probe(URL(fileURLWithPath: "/a.xyz"))
        }
    }

    /// Asking a decoder's status may load its libraries (FFmpeg's cost 60 ms): a FLAC file, or a stream whose bytes
    /// only the FLAC decoder recognises, must not make the registry ask the FFmpeg decoder.
    @Test func statusIsAskedOnlyOfDecodersThatClaimTheFile() throws {
        let asked = StatusLog()
        let registry = try DecoderRegistry([CountingDecoder(name: "flac", suffixes: ["flac"], magic: "fLaC", log: asked),
                                            CountingDecoder(name: "ffmpeg", suffixes: ["m4a"], magic: "ftyp", log: asked)])
        // What a scan lists files by: every claimed suffix, nobody's status asked.
        #expect(registry.suffixes == ["flac", "m4a"])
        #expect(asked.names.isEmpty)
        #expect(registry.candidates(forSuffix: "flac").map(\.name) == ["flac"])
        #expect(asked.names == ["flac"])
        let dir = try Fixture.temporaryDirectory("registry-status")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("stream")
        try Data("fLaC and then some".utf8).write(to: file)
        _ = try? registry.open(stream: LiveStream(file))
        #expect(asked.names == ["flac", "flac"])
        #expect(registry.candidates(forSuffix: "m4a").map(\.name) == ["ffmpeg"])
        #expect(asked.names == ["flac", "flac", "ffmpeg"])
    }
}

@Suite struct OutputRegistryTests {
    @Test func autoPrefersPulseWhenItAnswers() throws {
        let registry = try OutputRegistry([FakeOutput(name: "pulse", status: .available),
                                           FakeOutput(name: "wav", status: .available)], autoOrder: ["pulse", "wav"])
        #expect(try registry.resolve("auto").plugin.name == "pulse")
    }

    @Test func autoFallsBackToWAVAndSaysWhy() throws {
        let registry = try OutputRegistry([FakeOutput(name: "pulse", status: .unavailable(reason: "Connection refused")),
                                           FakeOutput(name: "wav", status: .available)], autoOrder: ["pulse", "wav"])
        let (plugin, why) = try registry.resolve("auto")
        #expect(plugin.name == "wav")
        #expect(why.contains("pulse") && why.contains("Connection refused"))
    }

    @Test func unknownOutputListsChoices() throws {
        let registry = try OutputRegistry([FakeOutput(name: "null", status: .available)], autoOrder: [])
        #expect(throws: RegistryError.unknownOutput(name: "alsa", known: ["auto", "null"])) { try registry.resolve("alsa") }
    }

    @Test func namedUnavailableOutputIsAnError() throws {
        let registry = try OutputRegistry([FakeOutput(name: "pulse", status: .unavailable(reason: "no server"))], autoOrder: [])
        #expect(throws: RegistryError.outputUnavailable(name: "pulse", reason: "no server")) { try registry.resolve("pulse") }
    }
}
