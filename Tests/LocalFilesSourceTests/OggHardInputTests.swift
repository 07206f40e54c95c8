// Compiled once Package.swift lists OpusDecoder and VorbisDecoder as dependencies of this test target.
// Their C modules are visible only to dependents, which keeps this off until then (their Swift modules
// may already sit in the build folder).
#if canImport(COpusFile) && canImport(CVorbisFile) && canImport(OpusDecoder) && canImport(VorbisDecoder)
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import MP3Decoder
import OpusDecoder
import Testing
import VorbisDecoder
import WAVDecoder

/// Damaged Ogg Vorbis and Opus files next to a good file: the scan completes and says what is wrong.
@Suite struct OggHardInputTests {
    let scan: ScanHarness

    init() throws {
        // Vorbis first for .ogg, as the plugin catalog has it: its error is the one reported for a bad .ogg.
        scan = try ScanHarness("crate-ogg", decoders: [VorbisDecoderPlugin(), OpusDecoderPlugin(), FLACDecoderPlugin(),
                                                       MP3DecoderPlugin(), WAVDecoderPlugin()])
    }

    @Test(arguments: [("ogg", "not an Ogg Vorbis stream"), ("opus", "not an Ogg Opus stream")])
    func randomBytes(suffix: String, expected: String) throws {
        let (reason, _) = try scan.scanNextToGood("noise.\(suffix)") { try HardInputs.write(HardInputs.random(seed: 7), to: $0) }
        #expect(reason == expected)
    }

    @Test(arguments: [Fixture.Codec.vorbis, .opus])
    func zeroBytes(codec: Fixture.Codec) throws {
        let (reason, _) = try scan.scanNextToGood("empty.\(codec.suffix)") { try Data().write(to: $0) }
        #expect(reason == "file is empty")
    }

    @Test(arguments: [Fixture.Codec.vorbis, .opus])
    func cutInHalf(codec: Fixture.Codec) throws {
        let (reason, track) = try scan.scanNextToGood("half.\(codec.suffix)") { try HardInputs.truncated(codec, at: $0) }
        // Where the cut falls decides which: inside a page, or between pages with audio missing.
        #expect(reason?.hasPrefix("truncated") == true || reason?.hasPrefix("damaged") == true, "\(String(describing: reason)) \(String(describing: track?.info))")
    }

    @Test(arguments: [Fixture.Codec.vorbis, .opus])
    func lastPageRunsPastTheEnd(codec: Fixture.Codec) throws {
        let (reason, track) = try scan.scanNextToGood("cut.\(codec.suffix)") { url in
            let bytes = try HardInputs.real(codec, at: url, frames: 88_200)
            try HardInputs.write(Array(bytes.dropLast(100)), to: url)
        }
        #expect(reason == "truncated: the file ends inside an Ogg page (incomplete copy or download?)",
                "\(String(describing: reason)) \(String(describing: track?.info))")
    }

    @Test(arguments: [Fixture.Codec.vorbis, .opus])
    func twentyMegabyteComment(codec: Fixture.Codec) throws {
        let (reason, track) = try scan.scanNextToGood("comment.\(codec.suffix)") { url in
            _ = try HardInputs.real(codec, at: url, title: "Big Comment")
            try PictureFixture.addOggComments(["HUGE=" + String(repeating: "x", count: 20 << 20)], to: url)
        }
        #expect(reason == nil && track?.title == "Big Comment", "\(String(describing: reason))")
    }
}
#endif
