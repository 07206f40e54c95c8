import CrateDomain
import CrateTestSupport
import Foundation
import Testing
import VorbisDecoder

/// Embedded covers in METADATA_BLOCK_PICTURE comments, added to a real Ogg Vorbis file's comment header.
@Suite struct VorbisPictureTests {
    let plugin = VorbisDecoderPlugin()
    let frames = 20_000

    /// Whatever the comments hold, probing finds the expected picture (or none), and the tags and the
    /// audio are untouched.
    @Test(arguments: OggPictureCase.all)
    func findsTheCover(_ example: OggPictureCase) throws {
        let dir = try Fixture.temporaryDirectory("vorbis-picture-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try Data(contentsOf: try PictureFixture.jpeg(in: dir))
        let png = try Data(contentsOf: try PictureFixture.png(in: dir))
        let file = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("sine.ogg"), frames: frames, tags: DecoderChecks.tags)
        try PictureFixture.addOggComments(example.comments(jpeg, png), to: file)

        let probed = try plugin.probe(file)
        #expect(probed.picture == example.expected(jpeg, png))
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(probed.info.frames == Int64(frames))
        #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
    }

    /// A real-sized cover after a back cover: a comment header of several Ogg pages, read whole.
    @Test func findsALargeCover() throws {
        let dir = try Fixture.temporaryDirectory("vorbis-picture-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let large = try Data(contentsOf: try PictureFixture.largeJPEG(in: dir))
        let png = try Data(contentsOf: try PictureFixture.png(in: dir))
        #expect(large.count > 70_000)
        let file = try Fixture.encode(.vorbis, to: dir.appendingPathComponent("sine.ogg"), frames: frames, tags: DecoderChecks.tags)
        try PictureFixture.addOggComments([PictureFixture.oggComment(PictureFixture.block(type: 4, mimeType: "image/png", data: png)),
                                           PictureFixture.oggComment(PictureFixture.block(mimeType: "image/jpeg", data: large))], to: file)
        let probed = try plugin.probe(file)
        #expect(probed.picture == EmbeddedPicture(data: large, mimeType: "image/jpeg"))
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
    }
}
