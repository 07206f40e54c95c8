import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import Testing

/// Embedded covers, attached by ffmpeg as FLAC PICTURE blocks and read by libFLAC's metadata iterator.
@Suite struct FLACPictureTests {
    let plugin = FLACDecoderPlugin()
    let frames = 20_000

    /// A directory with a red JPEG and a blue PNG made by ffmpeg; the caller removes it.
    func images() throws -> (dir: URL, jpeg: URL, png: URL) {
        let dir = try Fixture.temporaryDirectory("flac-picture-test")
        return (dir, try PictureFixture.jpeg(in: dir), try PictureFixture.png(in: dir))
    }

    func encode(_ dir: URL, _ pictures: [(file: URL, type: String)]) throws -> URL {
        try PictureFixture.encode(.flac, to: dir.appendingPathComponent("sine.flac"), frames: frames,
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
        let dir = try Fixture.temporaryDirectory("flac-picture-test")
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

    /// Picture bytes that are not an image: no picture, and nothing else lost.
    @Test func garbagePictureBytesGiveNil() throws {
        let (dir, jpeg, _) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try encode(dir, [(jpeg, PictureFixture.frontCover)])
        let head = try Data(contentsOf: jpeg).prefix(16)
        try PictureFixture.patch(file, replacing: head, with: Data(repeating: 0x55, count: head.count))
        let probed = try plugin.probe(file)
        #expect(probed.picture == nil)
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
    }

    /// A PICTURE block whose data length runs past the block: libFLAC refuses the block, the tags after it
    /// are still read, and a good picture elsewhere in the file is still found.
    @Test(arguments: [100_000, 0xFFFF_FF00])
    func truncatedPictureBlockIsSkipped(declaredExtra: Int) throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpegBytes = try Data(contentsOf: jpeg)
        for pictures in [[(jpeg, PictureFixture.frontCover)], [(jpeg, PictureFixture.frontCover), (png, PictureFixture.backCover)]] {
            let file = try encode(dir, pictures)
            // The data length field sits just before the image bytes.
            let declared = withUnsafeBytes(of: UInt32(jpegBytes.count).bigEndian) { Data($0) } + jpegBytes.prefix(4)
            let tooLong = withUnsafeBytes(of: UInt32(truncatingIfNeeded: jpegBytes.count + declaredExtra).bigEndian) { Data($0) } + jpegBytes.prefix(4)
            try PictureFixture.patch(file, replacing: declared, with: tooLong)
            let probed = try plugin.probe(file)
            #expect(probed.picture == (pictures.count == 1 ? nil : EmbeddedPicture(data: try Data(contentsOf: png), mimeType: "image/png")))
            #expect(probed.tags == DecoderChecks.expectedTags)
            #expect(probed.info.frames == Int64(frames))
        }
    }

    /// Some taggers put an ID3v2 tag before "fLaC"; libFLAC skips it, for the header, tags and pictures alike.
    @Test func readsPastALeadingID3v2Tag() throws {
        let (dir, jpeg, _) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try encode(dir, [(jpeg, PictureFixture.frontCover)])
        // "ID3", version 2.3, no flags, size 100 as a syncsafe integer, then 100 bytes of padding.
        let id3 = Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0, 100]) + Data(count: 100)
        try (id3 + Data(contentsOf: file)).write(to: file)
        let probed = try plugin.probe(file)
        #expect(probed.picture == EmbeddedPicture(data: try Data(contentsOf: jpeg), mimeType: "image/jpeg"))
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(probed.info.frames == Int64(frames))
    }
}
