import CrateDomain
import CrateTestSupport
import DecoderSupport
import Foundation
import Testing

@Suite struct PictureBlockTests {
    /// A real JPEG and PNG made by ffmpeg.
    static let images: (jpeg: Data, png: Data) = {
        do {
            let dir = try Fixture.temporaryDirectory("picture-block-test")
            defer { try? FileManager.default.removeItem(at: dir) }
            return (try Data(contentsOf: try PictureFixture.jpeg(in: dir)), try Data(contentsOf: try PictureFixture.png(in: dir)))
        } catch {
            // Tests comparing against these bytes then fail with a clear mismatch.
            Issue.record("cannot make the test images: \(error)")
            return (Data(), Data())
        }
    }()

    var jpeg: Data { Self.images.jpeg }
    var png: Data { Self.images.png }

    @Test func parsesAValidBlock() throws {
        let parsed = try #require(PictureBlock.parse(PictureFixture.block(type: 3, mimeType: "image/jpeg", description: "Front", data: jpeg)))
        #expect(parsed.type == 3)
        #expect(parsed.picture == EmbeddedPicture(data: jpeg, mimeType: "image/jpeg"))
        let other = try #require(PictureBlock.parse(PictureFixture.block(type: 4, mimeType: "image/png", data: png)))
        #expect(other.type == 4)
        #expect(other.picture == EmbeddedPicture(data: png, mimeType: "image/png"))
    }

    /// The bytes decide the type; the tag's MIME type may be anything.
    @Test func theBytesDecideTheMIMEType() throws {
        let parsed = try #require(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: png)))
        #expect(parsed.picture.mimeType == "image/png")
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "", data: jpeg))?.picture.mimeType == "image/jpeg")
    }

    /// A slice of a larger buffer parses the same, and the picture's own bytes start at index 0.
    @Test func parsesASlice() throws {
        let buffer = Data([1, 2, 3]) + PictureFixture.block(mimeType: "image/jpeg", data: jpeg) + Data([9, 9])
        let parsed = try #require(PictureBlock.parse(buffer[3...]))
        #expect(parsed.picture.data == jpeg)
        #expect(parsed.picture.data.startIndex == 0)
    }

    @Test func emptyOrShortDataGivesNil() {
        #expect(PictureBlock.parse(Data()) == nil)
        #expect(PictureBlock.parse(Data(repeating: 0, count: 31)) == nil)
        #expect(PictureBlock.fromBase64Comment("") == nil)
        #expect(PictureBlock.fromBase64Comment("METADATA_BLOCK_PICTURE=") == nil)
    }

    /// Every prefix of a valid block is cut somewhere: none parses, none crashes.
    @Test func everyCutBlockGivesNil() {
        let block = PictureFixture.block(mimeType: "image/jpeg", description: "Cover", data: jpeg)
        for count in 0..<block.count {
            #expect(PictureBlock.parse(block.prefix(count)) == nil, "cut at \(count)")
            #expect(PictureBlock.fromBase64Comment(block.prefix(count).base64EncodedString()) == nil, "cut at \(count)")
        }
    }

    /// Each length field pointing past the end, by a little or by up to 4 GiB.
    /// Field offsets: MIME length at 4, description length at 8 + 10 (after "image/jpeg").
    @Test(arguments: [4, 8 + 10], [UInt32(1), 0x7FFF_FFFF, 0xFFFF_FFFF])
    func lengthsPastTheEndGiveNil(field: Int, excess: UInt32) {
        var block = PictureFixture.block(mimeType: "image/jpeg", data: jpeg)
        let remaining = UInt32(block.count - field - 4)
        let value = UInt32(clamping: UInt64(remaining) + UInt64(excess))
        withUnsafeBytes(of: value.bigEndian) { block.replaceSubrange(field..<field + 4, with: $0) }
        #expect(PictureBlock.parse(block) == nil)
        #expect(PictureBlock.fromBase64Comment(PictureFixture.oggComment(block)) == nil)
    }

    @Test(arguments: [UInt32(1), 0x0100_0000, 0xFFFF_FFFF])
    func dataLengthPastTheEndGivesNil(excess: UInt32) {
        let declared = UInt32(clamping: UInt64(jpeg.count) + UInt64(excess))
        let block = PictureFixture.block(mimeType: "image/jpeg", data: jpeg, dataLength: declared)
        #expect(PictureBlock.parse(block) == nil)
        #expect(PictureBlock.fromBase64Comment(PictureFixture.oggComment(block)) == nil)
    }

    @Test func shorterDataLengthGivesThePrefixOrNil() {
        // Bytes after the declared data are ignored; a cut JPEG still starts like one.
        let block = PictureFixture.block(mimeType: "image/jpeg", data: jpeg, dataLength: 100)
        #expect(PictureBlock.parse(block)?.picture.data == jpeg.prefix(100))
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: jpeg, dataLength: 0)) == nil)
    }

    @Test func notAnImageGivesNil() {
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: Data("GIF89a, say".utf8))) == nil)
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "-->", data: Data("https://example.com/a.jpg".utf8))) == nil)
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: DecoderChecks.randomBytes(count: 500, seed: 1))) == nil)
    }

    @Test func pictureLargerThanTheLimitGivesNil() {
        var big = Data(count: EmbeddedPicture.maximumBytes + 1)
        big.replaceSubrange(0..<jpeg.count, with: jpeg)
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: big)) == nil)
        #expect(PictureBlock.parse(PictureFixture.block(mimeType: "image/jpeg", data: big.prefix(EmbeddedPicture.maximumBytes)))?
            .picture.data.count == EmbeddedPicture.maximumBytes)
    }

    @Test func readsBase64Comments() throws {
        let block = PictureFixture.block(type: 4, mimeType: "image/png", data: png)
        let value = block.base64EncodedString()
        for text in [value, "METADATA_BLOCK_PICTURE=" + value, "metadata_block_picture=" + value,
                     String(value.reversed().drop { $0 == "=" }.reversed())] {
            let parsed = try #require(PictureBlock.fromBase64Comment(text), "\(text.prefix(30))")
            #expect(parsed.type == 4)
            #expect(parsed.picture == EmbeddedPicture(data: png, mimeType: "image/png"))
        }
        Data(("TITLE=" + value).utf8).withUnsafeBytes { #expect(PictureBlock.value(ofComment: $0) == nil) }
        Data(("METADATA_BLOCK_PICTURE=" + value).utf8).withUnsafeBytes {
            #expect(PictureBlock.type(ofBase64Comment: $0) == 4)
            #expect(PictureBlock.value(ofComment: $0)?.count == value.utf8.count)
        }
    }

    @Test func invalidBase64GivesNil() {
        let value = PictureFixture.block(mimeType: "image/jpeg", data: jpeg).base64EncodedString()
        #expect(PictureBlock.fromBase64Comment("not base64 at all!") == nil)
        #expect(PictureBlock.fromBase64Comment(value + "A") == nil)  // one leftover character
        // Inside the width field, which the parser skips: still damage.
        #expect(PictureBlock.fromBase64Comment(String(value.prefix(40)) + "=" + value.dropFirst(41)) == nil)
        #expect(PictureBlock.fromBase64Comment(String(value.prefix(100)) + "\n" + value.dropFirst(100)) == nil)
        // A bad character inside the image data, past the header.
        var broken = Array(value.utf8)
        broken[broken.count - 10] = UInt8(ascii: "*")
        #expect(PictureBlock.fromBase64Comment(String(decoding: broken, as: UTF8.self)) == nil)
    }

    /// Noise and a valid block with random bytes changed: never a crash, and any picture found is a
    /// JPEG or PNG within the limit.
    @Test func survivesNoise() {
        let block = PictureFixture.block(mimeType: "image/jpeg", description: "d", data: jpeg)
        for seed in UInt64(0)..<300 {
            let noise = DecoderChecks.randomBytes(count: Int(seed % 97) + 1, seed: seed)
            #expect(PictureBlock.parse(noise) == nil)
            var mutated = block
            for (i, byte) in DecoderChecks.randomBytes(count: 6, seed: seed ^ 0xABCD).enumerated() {
                mutated[Int(byte) % 48 + i] = UInt8(truncatingIfNeeded: seed &* 31 &+ UInt64(byte))
            }
            for picture in [PictureBlock.parse(mutated)?.picture, PictureBlock.fromBase64Comment(mutated.base64EncodedString())?.picture] {
                if let picture {
                    #expect(EmbeddedPicture.sniffMIMEType(picture.data) == picture.mimeType)
                    #expect(picture.data.count <= EmbeddedPicture.maximumBytes)
                }
            }
        }
    }

    @Test func coverChoicePrefersTheFrontCoverThenTheFirst() {
        let a = EmbeddedPicture(data: jpeg, mimeType: "image/jpeg"), b = EmbeddedPicture(data: png, mimeType: "image/png")
        var choice = CoverChoice()
        choice.consider(type: 4) { a }
        #expect(choice.picture == a && !choice.isSettled)
        choice.consider(type: 0) { Issue.record("a second non-front picture is not read"); return b }
        choice.consider(type: 3) { nil }  // a damaged front cover changes nothing
        #expect(choice.picture == a && !choice.isSettled)
        choice.consider(type: 3) { b }
        #expect(choice.picture == b && choice.isSettled)
        choice.consider(type: 3) { Issue.record("nothing is read once a front cover is found"); return a }
        #expect(choice.picture == b)

        var none = CoverChoice()
        none.consider(type: 5) { nil }
        #expect(none.picture == nil)
        none.consider(type: 6) { b }
        #expect(none.picture == b)
    }
}
