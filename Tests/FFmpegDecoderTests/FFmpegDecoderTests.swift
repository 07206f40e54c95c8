import CrateDomain
import CrateTestSupport
import FFmpegDecoder
import Foundation
import Testing

@Suite struct FFmpegDecoderTests {
    let plugin = FFmpegDecoderPlugin()
    let frames = 100_003

    @Test func describesItself() {
        #expect(plugin.name == "ffmpeg")
        #expect(plugin.status.isAvailable, "\(plugin.status)")
        for suffix in ["m4a", "mp4", "aac", "wv", "ape", "wma"] { #expect(plugin.suffixes.contains(suffix)) }
        for type in ["audio/mp4", "audio/aac", "audio/x-m4a"] { #expect(plugin.mimeTypes.contains(type)) }
    }

    /// The magic numbers of the formats it is for; not those the native decoders read.
    @Test func recognizesItsFormatsByTheirBytes() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-sniff")
        defer { try? FileManager.default.removeItem(at: dir) }
        for format in [FFmpegFixture.Format.alac, .aac, .adts, .wavpack, .wma] {
            let file = try FFmpegFixture.sine(format, in: dir, frames: 20_000)
            #expect(plugin.recognizes(head: try Data(contentsOf: file).prefix(4096)), "\(format)")
        }
        #expect(plugin.recognizes(head: Data("MAC ".utf8) + Data(count: 60)))
        for codec in Fixture.Codec.allCases {
            let file = try Fixture.encode(codec, to: dir.appendingPathComponent("native.\(codec.suffix)"), frames: 20_000)
            #expect(!plugin.recognizes(head: try Data(contentsOf: file).prefix(4096)), "\(codec)")
        }
        #expect(!plugin.recognizes(head: DecoderChecks.randomBytes(count: 4096, seed: 1)))
        #expect(!plugin.recognizes(head: Data()))
    }

    /// ALAC is lossless: every sample of the 16-bit source comes back exactly, the length to the frame.
    @Test(arguments: [1, 2])
    func alacIsBitExactAgainstItsSource(channels: Int) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-alac")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(.alac, in: dir, frames: frames, channels: channels)
        let expected = StreamInfo(codec: "alac", sampleRate: 44100, channels: channels, bitsPerSample: 16, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let decoder = try plugin.open(file)
        #expect(decoder.info == expected)
        let samples = try DecoderChecks.decodeAll(decoder)
        #expect(samples.count == frames * channels)
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: frames, channels: channels)) == nil)
        for bufferFrames in [1, 1000] {
            #expect(try DecoderChecks.decodeAll(try plugin.open(file), bufferFrames: bufferFrames) == samples)
        }
    }

    /// 24-bit ALAC: FFmpeg decodes to 32-bit integers, which become floats exactly (n / 2^23).
    @Test func alac24BitIsBitExact() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-alac24")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = FFmpegFixture.samples24(frames: frames, channels: 2)
        let wav = dir.appendingPathComponent("source.wav")
        try FFmpegFixture.writeWAV24(source, sampleRate: 44100, channels: 2, to: wav)
        let file = try FFmpegFixture.encode(wav, as: .alac, to: dir.appendingPathComponent("hi.m4a"))
        let decoder = try plugin.open(file)
        #expect(decoder.info == StreamInfo(codec: "alac", sampleRate: 44100, channels: 2, bitsPerSample: 24, frames: Int64(frames)))
        let samples = try DecoderChecks.decodeAll(decoder)
        #expect(DecoderChecks.firstMismatch(samples, source.map { Float($0) / 8_388_608 }) == nil)
    }

    /// AAC as ffmpeg writes it in M4A: the encoder delay (1024 samples) and the padding are gone, so the length is
    /// the source's to the frame and the samples line up with the source's; they are FFmpeg's own decode of the same
    /// file, sample for sample.
    @Test(arguments: [FFmpegFixture.Format.aac, .aacFastStart, .aacITunSMPB])
    func aacHasTheSourcesExactLength(format: FFmpegFixture.Format) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-aac")
        defer { try? FileManager.default.removeItem(at: dir) }
        for length in [frames, 44100, 1025, 333] {
            let file = try FFmpegFixture.sine(format, in: dir, name: "sine-\(length)", frames: length)
            let expected = StreamInfo(codec: "aac", sampleRate: 44100, channels: 2, bitsPerSample: nil, frames: Int64(length))
            #expect(try plugin.probe(file).info == expected, "\(length) frames")
            let decoder = try plugin.open(file)
            #expect(decoder.info == expected)
            let samples = try DecoderChecks.decodeAll(decoder)
            #expect(samples.count == length * 2, "\(length) frames")
            // ffmpeg's command line is no measure of the length: it keeps the last frame's padding, and it applies the
            // edit list in its millisecond clock, which can drop a last packet (1025 frames give 1024). Without an edit
            // list it keeps the encoder delay too. The samples both have are compared.
            let reference = try FFmpegFixture.ffmpegDecode(file)
            let delay = format == .aacITunSMPB ? 1024 * 2 : 0
            let compared = min(samples.count, reference.count - delay)
            #expect(compared >= (length - 50) * 2, "\(length) frames")
            #expect(DecoderChecks.firstMismatch(Array(samples.prefix(compared)), Array(reference[delay..<delay + compared])) == nil,
                    "\(length) frames")
            if length == frames {
                try DecoderChecks.expectLossyMatch(plugin, file: file, source: DecoderChecks.sourceFloats(frames: length),
                                                   sampleRate: 44100)
            }
        }
    }

    /// A movie header shorter than the audio's media (an encoder that trims the padding with the edit list only):
    /// the end is trimmed to it.
    @Test func aShorterMovieDurationTrimsTheEnd() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-mvhd")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(.aac, in: dir, frames: 44100)
        // mvhd: version and flags, creation, modification, time scale (ms for ffmpeg), duration.
        #expect(try FFmpegFixture.readBox(file, box: "mvhd", offset: 12) == 1000)
        try FFmpegFixture.patchBox(file, box: "mvhd", offset: 16, value: 900)
        #expect(try plugin.probe(file).info.frames == 39690)
        #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == 39690 * 2)
    }

    @Test func readsTheTagsOfEveryFormat() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-tags")
        defer { try? FileManager.default.removeItem(at: dir) }
        for format in [FFmpegFixture.Format.alac, .aac, .wavpack, .wma] {
            let file = try FFmpegFixture.sine(format, in: dir, frames: 20_000, tags: DecoderChecks.tags)
            let probed = try plugin.probe(file)
            #expect(probed.tags == DecoderChecks.expectedTags, "\(format)")
            #expect(probed.picture == nil, "\(format)")
        }
    }

    /// ReplayGain tags: APE items in WavPack, freeform keys in MP4 (`----:com.apple.iTunes:replaygain_track_gain` from
    /// taggers; ffmpeg writes them as `mdta` keys, read the same way).
    @Test func readsReplayGain() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-rg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tags = ["REPLAYGAIN_TRACK_GAIN": "-6.50 dB", "REPLAYGAIN_TRACK_PEAK": "0.501000", "REPLAYGAIN_ALBUM_GAIN": "-7.25 dB"]
        for format in [FFmpegFixture.Format.wavpack, .aacITunSMPB] {
            let probed = try plugin.probe(try FFmpegFixture.sine(format, in: dir, frames: 20_000, tags: tags))
            #expect(probed.tags.replayGain == ReplayGainTags(trackGain: -6.5, trackPeak: 0.501, albumGain: -7.25), "\(format)")
        }
    }

    /// The disc subtitle: an APE item in WavPack, an `mdta` key in MP4 (read like taggers' freeform
    /// `----:com.apple.iTunes:DISCSUBTITLE`), ASF's `WM/SetSubTitle` in WMA.
    @Test func readsTheDiscSubtitle() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-disc-subtitle")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (format, key) in [(FFmpegFixture.Format.wavpack, "DISCSUBTITLE"), (.aacITunSMPB, "DISCSUBTITLE"), (.wma, "WM/SetSubTitle")] {
            let file = try FFmpegFixture.sine(format, in: dir, frames: 20_000, tags: [key: "The Live Set", "disc": "2/2"])
            let probed = try plugin.probe(file)
            #expect(probed.tags.discSubtitle == "The Live Set" && probed.tags.discNumber == 2, "\(format)")
        }
    }

    /// The cover ffmpeg attaches to an M4A (`covr`), PNG or JPEG, comes through with its exact bytes, and the tags
    /// with it.
    @Test(arguments: ["png", "jpeg"])
    func readsTheCover(format: String) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-cover")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = format == "png" ? try PictureFixture.png(in: dir) : try PictureFixture.jpeg(in: dir)
        for audio in [FFmpegFixture.Format.alac, .aac] {
            let file = try FFmpegFixture.sine(audio, in: dir, frames: 20_000, tags: DecoderChecks.tags, pictures: [image])
            let probed = try plugin.probe(file)
            #expect(probed.picture == EmbeddedPicture(data: try Data(contentsOf: image), mimeType: "image/\(format)"), "\(audio)")
            #expect(probed.tags == DecoderChecks.expectedTags)
            #expect(probed.info.frames == 20_000)
            // The picture is no audio: decoding gives the sine alone.
            #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == 20_000 * 2)
        }
    }

    /// WavPack is lossless and its header counts samples: exact, like ALAC.
    @Test func wavPackIsBitExact() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-wv")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(.wavpack, in: dir, frames: frames)
        let expected = StreamInfo(codec: "wavpack", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: Int64(frames))
        #expect(try plugin.probe(file).info == expected)
        let samples = try DecoderChecks.decodeAll(try plugin.open(file))
        #expect(DecoderChecks.firstMismatch(samples, DecoderChecks.sourceFloats(frames: frames)) == nil)
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file)
    }

    /// Raw AAC and WMA state no exact length: decoding gives none (nothing is trimmed), probing counts the frames.
    @Test(arguments: [FFmpegFixture.Format.adts, .wma])
    func formatsWithoutAnExactLengthAreCountedWhenProbed(format: FFmpegFixture.Format) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-count")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(format, in: dir, frames: frames)
        let decoder = try plugin.open(file)
        #expect(decoder.info.frames == nil)
        let samples = try DecoderChecks.decodeAll(decoder)
        let probed = try plugin.probe(file)
        #expect(probed.info.frames == Int64(samples.count / 2))
        #expect(probed.info.codec == (format == .adts ? "aac" : "wmav2"))
        // Neither knows its encoder delay, so the sine comes a little late: level and pitch are checked, not alignment.
        let left = SignalAnalysis.channel(0, of: samples, channels: 2)
        #expect(abs(SignalAnalysis.rms(samples[(4096 * 2)...]) - 0.3535) < 0.02)
        #expect(abs((SignalAnalysis.dominantFrequency(left, sampleRate: 44100) ?? 0) - 440) < 2)
        // ffmpeg's WMA encoder leaves out the last partial block: within a block (2048 frames) of the source.
        #expect(abs(samples.count / 2 - frames) <= 4096, "\(samples.count / 2) frames")
    }

    /// ALAC frames depend on nothing before them: after any seek, the samples are exactly the straight decode's.
    @Test func alacSeeksToTheExactFrame() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-seek")
        defer { try? FileManager.default.removeItem(at: dir) }
        try DecoderChecks.expectSampleExactSeeks(plugin, file: try FFmpegFixture.sine(.alac, in: dir, frames: frames))
    }

    /// AAC: the seek decodes (and drops) a pre-roll before the target with a fresh decoder, so the samples are the
    /// straight decode's, bit for bit, the encoder delay dropped again at a seek to the start. (Without noise coding:
    /// see the next test.)
    @Test(arguments: [FFmpegFixture.Format.aacWithoutNoiseCoding, .aacITunSMPB])
    func aacSeeksToTheExactFrame(format: FFmpegFixture.Format) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-seek")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("seek.wav")
        try Fixture.writeWAV(DecoderChecks.seekSignal(frames: frames, sampleRate: 44100, channels: 2), sampleRate: 44100,
                             channels: 2, to: source)
        let file = try FFmpegFixture.encode(source, as: format, to: dir.appendingPathComponent("seek.\(format.suffix)"), frames: frames)
        try DecoderChecks.expectSampleExactSeeks(plugin, file: file)
    }

    /// Noise-coded bands (PNS, which ffmpeg's encoder uses by default) are filled from the decoder's random generator:
    /// after a seek elsewhere than the start they hold other noise of the same level, so the samples differ a little
    /// there; the position is still exact, and a seek to the start gives the straight decode exactly.
    @Test func aacWithNoiseCodingSeeksToTheExactFrame() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-seek")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(.aac, in: dir, frames: frames)
        let deviations = try DecoderChecks.expectSampleExactSeeks(plugin, file: file, tolerance: 0.01)
        #expect(deviations.filter { $0.start == 0 }.allSatisfy { $0.maxDifference == 0 }, "\(deviations)")
    }

    @Test(arguments: DecoderChecks.BadInput.allCases)
    func refusesBadInput(_ kind: DecoderChecks.BadInput) throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        // The index at the end (cut off with the file) and at the start (the audio data cut off).
        for format in [FFmpegFixture.Format.alac, .aacFastStart] {
            let good = try FFmpegFixture.sine(format, in: dir, name: "good-\(format)", frames: frames)
            try DecoderChecks.expectRefusal(plugin, kind, from: good, random: "not a format the ffmpeg decoder reads")
        }
    }

    /// Damage inside a file that looks whole: a wrecked index is refused with FFmpeg's reason, wrecked audio data
    /// decodes (or is refused) without a crash, and a file of another format is refused naming what it is.
    @Test func damagedFilesGiveAClearError() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-damage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try FFmpegFixture.sine(.aac, in: dir, frames: frames)
        let data = try Data(contentsOf: good)
        guard let moov = data.range(of: Data("moov".utf8)), let mdat = data.range(of: Data("mdat".utf8)) else {
            Issue.record("no moov or mdat box")
            return
        }
        let index = dir.appendingPathComponent("index.m4a")
        var wrecked = data
        wrecked.replaceSubrange(moov.upperBound..<data.count, with: DecoderChecks.randomBytes(count: data.count - moov.upperBound, seed: 3))
        try wrecked.write(to: index)
        let indexError = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(index)) }
        #expect(indexError?.path == index.path)
        #expect(indexError?.reason.isEmpty == false)

        let audio = dir.appendingPathComponent("audio.m4a")
        var noisy = data
        let from = mdat.upperBound + 2000, to = min(moov.lowerBound - 8, from + 20_000)
        noisy.replaceSubrange(from..<to, with: DecoderChecks.randomBytes(count: to - from, seed: 4))
        try noisy.write(to: audio)
        do {
            let samples = try DecoderChecks.decodeAll(try plugin.open(audio))
            #expect(samples.allSatisfy { $0 >= -1 && $0 <= 1 })
        } catch let error as DecodeError {
            #expect(error.path == audio.path && !error.reason.isEmpty)
        }

        let flac = dir.appendingPathComponent("flac.m4a")
        try FileManager.default.moveItem(at: try Fixture.encode(.flac, to: dir.appendingPathComponent("flac.flac"), frames: 20_000), to: flac)
        let other = #expect(throws: DecodeError.self) { try plugin.probe(flac) }
        #expect(other?.reason.hasPrefix("not a format the ffmpeg decoder reads") == true, "\(String(describing: other))")
        #expect(other?.reason.contains("FLAC") == true, "\(String(describing: other))")
    }
}
