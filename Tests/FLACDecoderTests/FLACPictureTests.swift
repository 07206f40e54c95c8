import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import Testing

/// Embedded covers, attached by ffmpeg as FLAC PICTURE blocks and read by libFLAC's metadata iterator.
@Suite struct FLACPictureTests {
    let checks = AttachedPictureChecks(plugin: FLACDecoderPlugin(), codec: .flac)
    var plugin: any DecoderPlugin { checks.plugin }
    var frames: Int { checks.frames }

    func images() throws -> (dir: URL, jpeg: URL, png: URL) { try checks.images() }
    func encode(_ dir: URL, _ pictures: [(file: URL, type: String)]) throws -> URL { try checks.encode(dir, pictures) }

    @Test(arguments: ["jpeg", "png"])
    func readsTheCoverBytes(format: String) throws { try checks.readsTheCoverBytes(format: format) }

    @Test func noPictureGivesNil() throws { try checks.noPictureGivesNil() }

    /// The front cover wins wherever it is; without one, the first picture does.
    @Test func frontCoverWinsOverEarlierPictures() throws { try checks.frontCoverWinsOverEarlierPictures() }

    /// Picture bytes that are not an image: no picture, tags and audio untouched; a later good picture is found.
    @Test func garbagePictureBytesGiveNil() throws { try checks.garbagePictureBytesGiveNil() }

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
