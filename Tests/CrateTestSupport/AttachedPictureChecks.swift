public import CrateDomain
public import Foundation
import Testing

/// The cover rules shared by the decoders whose files ffmpeg can attach pictures to (FLAC, MP3):
/// exact bytes and type, none when there is none, the front cover wins, damaged bytes give none.
/// Each decoder's test target runs these and adds what is particular to its format.
public struct AttachedPictureChecks: Sendable {
    public let plugin: any DecoderPlugin
    public let codec: Fixture.Codec
    public let frames = 20_000

    public init(plugin: any DecoderPlugin, codec: Fixture.Codec) {
        self.plugin = plugin
        self.codec = codec
    }

    /// A directory with a red JPEG and a blue PNG made by ffmpeg; the caller removes it.
    public func images() throws -> (dir: URL, jpeg: URL, png: URL) {
        let dir = try Fixture.temporaryDirectory("\(codec.rawValue)-picture-test")
        return (dir, try PictureFixture.jpeg(in: dir), try PictureFixture.png(in: dir))
    }

    public func encode(_ dir: URL, _ pictures: [(file: URL, type: String)]) throws -> URL {
        try PictureFixture.encode(codec, to: dir.appendingPathComponent("sine.\(codec.suffix)"), frames: frames,
                                  tags: DecoderChecks.tags, pictures: pictures)
    }

    public func readsTheCoverBytes(format: String) throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = format == "jpeg" ? jpeg : png
        let probed = try plugin.probe(try encode(dir, [(image, PictureFixture.frontCover)]))
        #expect(probed.picture == EmbeddedPicture(data: try Data(contentsOf: image), mimeType: "image/\(format)"))
        #expect(probed.tags == DecoderChecks.expectedTags)
        #expect(probed.info.frames == Int64(frames))
    }

    public func noPictureGivesNil() throws {
        let dir = try Fixture.temporaryDirectory("\(codec.rawValue)-picture-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let probed = try plugin.probe(try encode(dir, []))
        #expect(probed.picture == nil)
        #expect(probed.tags == DecoderChecks.expectedTags)
    }

    /// The front cover wins wherever it is; without one, the first picture does.
    public func frontCoverWinsOverEarlierPictures() throws {
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

    /// Picture bytes that are not an image: no picture, tags and audio untouched; a good picture after the
    /// damaged front cover is still found.
    public func garbagePictureBytesGiveNil() throws {
        let (dir, jpeg, png) = try images()
        defer { try? FileManager.default.removeItem(at: dir) }
        let head = try Data(contentsOf: jpeg).prefix(16)
        for pictures in [[(jpeg, PictureFixture.frontCover)], [(jpeg, PictureFixture.frontCover), (png, PictureFixture.backCover)]] {
            let file = try encode(dir, pictures)
            try PictureFixture.patch(file, replacing: head, with: Data(repeating: 0x55, count: head.count))
            let probed = try plugin.probe(file)
            let expected = pictures.count == 1 ? nil : EmbeddedPicture(data: try Data(contentsOf: png), mimeType: "image/png")
            #expect(probed.picture == expected)
            #expect(probed.tags == DecoderChecks.expectedTags)
            #expect(try DecoderChecks.decodeAll(try plugin.open(file)).count == frames * 2)
        }
    }
}
