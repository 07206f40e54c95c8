import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// Transcoding a library track with the FFmpeg encoder plugin: ffmpeg reads what comes out as Opus or MP3 of the
/// track's length (from the offset on), and a listener who goes away stops the work.
@Suite struct TranscoderTests {
    let fixture: LibraryFixture
    let runtime: CrateRuntime
    let track: Track

    init() throws {
        fixture = try LibraryFixture("crate-transcode")
        try fixture.album("Band", "Long", tracks: 1, frames: 44100 * 30)
        runtime = try fixture.runtime()
        _ = try runtime.library.importPaths([fixture.music.path], mode: .reference)
        let album = try #require(try runtime.collection.albums().first)
        track = try #require(try runtime.collection.tracks(albumID: album.id).first)
    }

    /// The whole of a transcode, written to a file.
    func collect(_ transcode: Transcode, into name: String) async throws -> URL {
        var data = Data()
        for try await chunk in transcode.bytes { data.append(chunk) }
        let url = fixture.dir.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// ffprobe's codec and duration of a file.
    func probe(_ url: URL) throws -> (codec: String, seconds: Double) {
        let out = try Fixture.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name:format=duration",
                                              "-of", "default=nw=1", url.path])
        let fields = Dictionary(out.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { a, _ in a })
        return (fields["codec_name"] ?? "", Double(fields["duration"] ?? "") ?? -1)
    }

    @Test(arguments: [("opus", "opus"), ("mp3", "mp3")])
    func aTrackBecomesTheFormatWithItsLength(format: String, codec: String) async throws {
        let transcode = try runtime.transcoder.start(trackID: track.id, format: format, bitRate: 96)
        #expect(transcode.bitRate == 96 && transcode.format.name == format)
        #expect(abs(transcode.estimatedLength - Int(track.duration * 96_000 / 8)) < 1000)
        let url = try await collect(transcode, into: "whole.\(format)")
        let probed = try probe(url)
        #expect(probed.codec == codec)
        #expect(abs(probed.seconds - track.duration) <= 0.1, "\(probed.seconds) s for a \(track.duration) s track")
        // Crate's own decoders read it back as the track's tone (a 0.5 sine: RMS about 0.35), not silence.
        let decoder = try runtime.decoders.open(url)
        var buffer = [Float](repeating: 0, count: 4096 * decoder.info.channels)
        var sum = 0.0, count = 0
        while case let n = try buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
            for x in buffer[0..<n * decoder.info.channels] { sum += Double(x * x) }
            count += n * decoder.info.channels
        }
        let rms = (sum / Double(max(count, 1))).squareRoot()
        #expect(rms > 0.25 && rms < 0.45, "RMS \(rms)")
    }

    @Test func anOffsetStartsWhereAsked() async throws {
        let transcode = try runtime.transcoder.start(trackID: track.id, format: "opus", offset: 12)
        let probed = try probe(try await collect(transcode, into: "from12.opus"))
        #expect(abs(probed.seconds - (track.duration - 12)) <= 0.1, "\(probed.seconds) s")
    }

    @Test func aListenerWhoGoesAwayStopsTheWork() async throws {
        let transcode = try runtime.transcoder.start(trackID: track.id, format: "mp3")
        for try await chunk in transcode.bytes {
            #expect(!chunk.isEmpty)
            break
        }
        // The iterator is gone: the transcoding thread is told and ends, well before 30 s of music are encoded.
        try waitUntil("the transcoding thread to stop", seconds: 10) { transcode.bytes.isFinished }
        #expect(transcode.bytes.isCancelled)
    }

    @Test func unknownFormatsAndTracksSayWhy() throws {
        let format = #expect(throws: EncodeError.self) { try runtime.transcoder.start(trackID: track.id, format: "aac") }
        #expect(format?.reason.contains("opus") == true, "\(String(describing: format))")
        #expect(throws: StoreError.self) { try runtime.transcoder.start(trackID: 999_999, format: "opus") }
        #expect(Set(runtime.transcoder.formats.map(\.name)) == ["opus", "mp3"])
    }
}
