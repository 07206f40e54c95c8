import CrateDomain
import CrateTestSupport
import Foundation
import MP3Decoder
import Testing

/// Embedded covers, attached by ffmpeg as ID3v2.3 APIC frames and read through mpg123's MPG123_PICTURE.
@Suite struct MP3PictureTests {
    let plugin = MP3DecoderPlugin()
    let frames = 20_000

    /// A directory with a red JPEG and a blue PNG made by ffmpeg; the caller removes it.
    func images() throws -> (dir: URL, jpeg: URL, png: URL) {
        let dir = try Fixture.temporaryDirectory("mp3-picture-test")
        return (dir, try PictureFixture.jpeg(in: dir), try PictureFixture.png(in: dir))
    }

    func encode(_ dir: URL, _ pictures: [(file: URL, type: String)]) throws -> URL {
        try PictureFixture.encode(.mp3, to: dir.appendingPathComponent("sine.mp3"), frames: frames,
                                  tags: DecoderChecks.tags, pictures: pictures)
    }

    @Test(arguments: ["jpeg", "png"])
    func readsTheCoverBytes(format: String) throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = format == "jpeg" ? jpeg : png
        let probed = try plugin.probe(try encode(dir, [(image, PictureFixture.frontCover)]))
        #expect(probed.picture == EmbeddedPicture(data: try Data(contentsOf: image), mimeType: "image/\(format)"))
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(probed.info.frames == Int64(frames))
    }

    @Test func noPictureGivesNil() throws {
        let dir = try Fixture.temporaryDirectory("mp3-picture-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let probed = try plugin.probe(try encode(dir, []))
        #expect(probed.picture == nil)
        #expect(probed.tags == DecoderChecks.expectedTags)
    }

    /// The front cover wins wherever it is; without one, the first picture does.
    @Test func frontCoverWinsOverEarlierPictures() throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpegBytes = try Data(contentsOf: jpeg), pngBytes = try Data(contentsOf: png)

        let frontSecond = try plugin.probe(try encode(dir, [(png, PictureFixture.backCover), (jpeg, PictureFixture.frontCover)]))
        #expect(frontSecond.picture == EmbeddedPicture(data: jpegBytes, mimeType: "image/jpeg"))

        let frontFirst = try plugin.probe(try encode(dir, [(png, PictureFixture.frontCover), (jpeg, PictureFixture.backCover)]))
        #expect(frontFirst.picture == EmbeddedPicture(data: pngBytes, mimeType: "image/png"))

        let noFront = try plugin.probe(try encode(dir, [(jpeg, "Leaflet page"), (png, PictureFixture.backCover)]))
        #expect(noFront.picture == EmbeddedPicture(data: jpegBytes, mimeType: "image/jpeg"))
    }

    /// APIC bytes that are not an image: no picture, and the tags and audio are untouched; a good
    /// picture after the damaged front cover is still found.
    @Test func garbagePictureBytesGiveNil() throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let head = try Data(contentsOf: jpeg).prefix(16)
        for pictures in [[(jpeg, PictureFixture.frontCover)], [(jpeg, PictureFixture.frontCover), (png, PictureFixture.backCover)]] {
            let file = try encode(dir, pictures)
            try PictureFixture.patch(file, replacing: head, with: Data(repeating: 0x55, count: head.count))
            let probed = try plugin.probe(file)
            #expect(probed.picture == (pictures.count == 1 ? nil : EmbeddedPicture(data: try Data(contentsOf: png), mimeType: "image/png")))
            #expect(probed.tags == DecoderChecks.expectedTags)
            #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
        }
    }
}
