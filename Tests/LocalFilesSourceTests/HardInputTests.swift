import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

/// One test per kind of damaged audio file: the scan completes, the good file next to it is imported,
/// and the bad one is a failure whose reason a user can act on (or a track, when the library reads it).
@Suite struct HardInputTests {
    let scan: ScanHarness

    init() throws {
        scan = try ScanHarness("crate-hard")
    }

    @Test(arguments: ["flac", "mp3", "wav"])
    func zeroByteFile(suffix: String) throws {
        let (reason, _) = try scan.scanNextToGood("empty.\(suffix)") { try Data().write(to: $0) }
        #expect(reason == "file is empty")
    }

    @Test(arguments: [Fixture.Codec.flac, .mp3, .wav])
    func fileCutInHalf(codec: Fixture.Codec) throws {
        let (reason, _) = try scan.scanNextToGood("half.\(codec.suffix)") { try HardInputs.truncated(codec, at: $0) }
        #expect(reason?.hasPrefix("truncated") == true, "\(String(describing: reason))")
    }

    @Test(arguments: [("flac", "not a FLAC file"), ("mp3", "not an MP3 stream"), ("wav", "not a WAV file")])
    func randomBytes(suffix: String, expected: String) throws {
        let (reason, _) = try scan.scanNextToGood("noise.\(suffix)") { try HardInputs.write(HardInputs.random(seed: 42), to: $0) }
        #expect(reason?.hasPrefix(expected) == true, "\(String(describing: reason))")
    }

    @Test func id3HeaderDeclaringMoreThanTheFile() throws {
        // mpg123 skips the declared 200 MB, past the end, and finds no audio frame there; the decoder then reads
        // from the first real frame after the header (issue 16, item 8: it used to be refused).
        let (reason, track) = try scan.scanNextToGood("id3.mp3") { try HardInputs.mp3WithID3PastEnd(at: $0) }
        #expect(reason == nil && track?.info.codec == "mp3" && (track?.info.frames ?? 0) > 0, "\(String(describing: reason))")
    }

    @Test func flacFirstBlockPastTheEnd() throws {
        // The reason is the FLAC decoder's (today "not a FLAC file"): libFLAC refuses the header as a whole.
        let (reason, _) = try scan.scanNextToGood("first.flac") { try HardInputs.flacWithFirstBlockPastEnd(at: $0) }
        #expect(reason?.isEmpty == false)
    }

    @Test func flacLastBlockPastTheEnd() throws {
        let (reason, _) = try scan.scanNextToGood("last.flac") { try HardInputs.flacWithLastBlockPastEnd(at: $0) }
        #expect(reason?.isEmpty == false)
    }

    @Test func wavDataChunkPastTheEnd() throws {
        let (reason, _) = try scan.scanNextToGood("data.wav") { try HardInputs.wavWithDataPastEnd(at: $0) }
        #expect(reason?.hasPrefix("truncated: the data chunk declares") == true, "\(String(describing: reason))")
    }

    @Test func wavListChunkPastTheEnd() throws {
        let (reason, _) = try scan.scanNextToGood("list.wav") { try HardInputs.wavWithListPastEnd(at: $0) }
        #expect(reason?.hasPrefix("truncated: chunk 'LIST' declares") == true, "\(String(describing: reason))")
    }

    @Test func hugeTXXXFrame() throws {
        // A 30 MB frame is only a big tag: the file is read, its other frames with it.
        let (reason, track) = try scan.scanNextToGood("txxx.mp3") { try HardInputs.mp3WithHugeTXXX(at: $0, title: "Big Tag") }
        #expect(reason == nil && track?.title == "Big Tag" && track?.info.codec == "mp3")
    }

    @Test func hugeFLACComment() throws {
        // Nearly 16 MB, the most a FLAC metadata block holds.
        let (reason, track) = try scan.scanNextToGood("comment.flac") { try HardInputs.flacWithHugeComment(at: $0, title: "Big Comment") }
        #expect(reason == nil && track?.title == "Big Comment" && track?.info.codec == "flac")
    }
}
