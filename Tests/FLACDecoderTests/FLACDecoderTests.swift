import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import Testing

@Suite struct FLACDecoderTests {
    let plugin = FLACDecoderPlugin()
    let frames = 100_000

    /// A tagged 16-bit FLAC of the 440 Hz test sine in a fresh directory; the caller removes the directory.
    func fixture() throws -> (dir: URL, file: URL) {
        let dir = try Fixture.temporaryDirectory("flac-test")
        let file = try Fixture.encode(.flac, to: dir.appendingPathComponent("sine.flac"), frames: frames, tags: DecoderChecks.tags)
        return (dir, file)
    }

    @Test func describesItself() {
        #expect(plugin.name == "flac")
        #expect(plugin.suffixes == ["flac"])
        #expect(plugin.mimeTypes.contains("audio/flac"))
        #expect(plugin.status.isAvailable)
    }

    @Test func probeAndDecodeGiveTheExactLength() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        let samples = try DecoderChecks.decodeAll(decoder)
        #expect(samples.count == frames * 2)
    }

    @Test func readsTheTags() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try plugin.probe(file).tags == DecoderChecks.expectedTags)
    }

    /// Issue 16, item 3: repeated GENRE comments (as metaflac, Picard and beets write them) all count.
    @Test func keepsEveryGenreValue() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Fixture.run("metaflac", ["--remove-tag=GENRE", "--set-tag=GENRE=Disco", "--set-tag=GENRE=Funk",
                                     "--set-tag=GENRE=Soul", file.path])
        #expect(try plugin.probe(file).tags.genre == "Disco; Funk; Soul")
    }

    /// Lossless: every sample is the generated Int16 / 32768, whatever the read size.
    @Test(arguments: [4096, 1, 1000])
    func samplesEqualTheSource(bufferFrames: Int) throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = try DecoderChecks.decodeAll(try plugin.open(file), bufferFrames: bufferFrames)
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: frames)) == nil)
    }

    /// 24-bit samples are scaled by 2^23: the 16-bit sine shifted left by 8 decodes to the same floats.
    @Test func decodes24BitExactly() throws {
        let dir = try Fixture.temporaryDirectory("flac-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("src.wav"), file = dir.appendingPathComponent("sine24.flac")
        try Fixture.writeWAV(Fixture.sine(frames: 20_000, sampleRate: 96000), sampleRate: 96000, channels: 2, to: wav)
        try Fixture.run("sox", [wav.path, "-b", "24", file.path])
        let decoder = try plugin.open(file)
        #expect(decoder.info == StreamInfo(codec: "flac", sampleRate: 96000, channels: 2, bitsPerSample: 24, frames: 20_000))
        let samples = try DecoderChecks.decodeAll(decoder)
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: 20_000, sampleRate: 96000)) == nil)
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectRefusal(plugin, kind, from: good, random: "not a FLAC file")
    }

    /// Lossless and sample-exact: after any seek (inside a block, on a block border) the rest of the file
    /// is exactly the straight decode's.
    @Test func seeksToTheExactFrame() throws {
        let (dir, file) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file)
    }

    /// A cut file opens (only the header is read), but a seek into the missing part is an error naming the
    /// file, and the decoder then stays at its end rather than decoding from an unknown place.
    @Test func refusesToSeekPastTheAudioOfACutFile() throws {
        let (dir, good) = try fixture()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = try DecoderChecks.makeBadFile(.truncated, from: good)
        let decoder = try plugin.open(cut)
        let error = #expect(throws: DecodeError.self) { try decoder.seek(toFrame: Int64(frames - 10)) }
        #expect(error?.path == cut.path)
        #expect(error?.reason.hasPrefix("cannot seek to frame \(frames - 10)") == true, "\(String(describing: error))")
        #expect(try DecoderChecks.discard(decoder, frames: 1) == 0)
        // The part that is there still seeks exactly.
        try decoder.seek(toFrame: 1000)
        var buffer = [Float](repeating: .nan, count: 1000 * 2)
        let read = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        #expect(read > 0)
        let expected = DecoderChecks.sourceFloats(frames: 1000 + read)[(1000 * 2)...]
        #expect(DecoderChecks.firstMismatch(Array(buffer[0..<(read * 2)]), Array(expected)) == nil)
    }
}
