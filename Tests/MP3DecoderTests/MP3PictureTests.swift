import CrateDomain
import CrateTestSupport
import Foundation
import MP3Decoder
import Testing

/// Embedded covers, attached by ffmpeg as ID3v2.3 APIC frames and read through mpg123's MPG123_PICTURE.
@Suite struct MP3PictureTests {
    let checks = AttachedPictureChecks(plugin: MP3DecoderPlugin(), codec: .mp3)

    @Test(arguments: ["jpeg", "png"])
    func readsTheCoverBytes(format: String) throws { try checks.readsTheCoverBytes(format: format) }

    @Test func noPictureGivesNil() throws { try checks.noPictureGivesNil() }

    /// The front cover wins wherever it is; without one, the first picture does.
    @Test func frontCoverWinsOverEarlierPictures() throws { try checks.frontCoverWinsOverEarlierPictures() }

    /// APIC bytes that are not an image: no picture, tags and audio untouched; a later good picture is found.
    @Test func garbagePictureBytesGiveNil() throws { try checks.garbagePictureBytesGiveNil() }
}
