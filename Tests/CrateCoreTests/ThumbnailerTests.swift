@testable import CrateCore
import CrateTestSupport
import Foundation
import Synchronization
import Testing

/// Thumbnails of real pictures made by ffmpeg at test time. ffmpeg cannot write progressive, grey or CMYK
/// JPEGs, so those come from libjpeg itself through `Thumbnailer.encodeJPEG` (internal, hence @testable).
@Suite struct ThumbnailerTests {
    /// Width and height by `Thumbnailer.dimensions(of:)`, as an array that #expect can compare.
    func size(_ data: Data) -> [Int]? {
        Thumbnailer.dimensions(of: data).map { [$0.width, $0.height] }
    }

    /// A scratch folder removed when `body` returns.
    func inFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = try Fixture.temporaryDirectory("crate-thumbs")
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    /// One picture made by ffmpeg from a lavfi `source`, as `name`'s format (its suffix) with `options`.
    func picture(_ source: String, _ name: String, _ options: [String] = [], in dir: URL) throws -> Data {
        let url = dir.appendingPathComponent(name)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1"]
            + options + [url.path])
        return try Data(contentsOf: url)
    }

    /// Raw packed pixels of a lavfi source in an ffmpeg pixel format (rgb24, gray).
    func rawPixels(_ source: String, format: String, in dir: URL) throws -> [UInt8] {
        let url = dir.appendingPathComponent("raw-\(UUID().uuidString).\(format)")
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1",
                                   "-f", "rawvideo", "-pix_fmt", format, url.path])
        return try [UInt8](Data(contentsOf: url))
    }

    /// What ffmpeg decodes the thumbnail to: width, height and rgb24 pixels.
    func decodeWithFFmpeg(_ jpeg: Data, in dir: URL) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let url = dir.appendingPathComponent("thumb-\(UUID().uuidString).jpg")
        try jpeg.write(to: url)
        let probe = try Fixture.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                                                url.path])
        let fields = probe.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        #expect(fields.first == "mjpeg")
        let width = try #require(Int(fields.dropFirst().first ?? "")), height = try #require(Int(fields.last ?? ""))
        let raw = dir.appendingPathComponent("thumb-\(UUID().uuidString).rgb")
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgb24",
                                   raw.path])
        return (width, height, try [UInt8](Data(contentsOf: raw)))
    }

    /// The start-of-frame marker and component count of a JPEG (0xC0 baseline, 0xC2 progressive).
    func frame(of jpeg: Data) -> (marker: UInt8, components: Int)? {
        let bytes = [UInt8](jpeg)
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return (marker, Int(bytes[i + 9])) }
            i += 2 + length
        }
        return nil
    }

    /// Checks a thumbnail is a baseline 3-component JPEG of `width` x `height` by our reader and by ffprobe,
    /// and returns its pixels as ffmpeg decodes them.
    @discardableResult
    func checkThumbnail(_ thumb: Data, width: Int, height: Int, in dir: URL) throws -> [UInt8] {
        #expect(thumb.starts(with: [0xFF, 0xD8, 0xFF]))
        let sof = try #require(frame(of: thumb))
        #expect(sof.marker == 0xC0 && sof.components == 3)
        #expect(size(thumb) == [width, height])
        let decoded = try decodeWithFFmpeg(thumb, in: dir)
        #expect(decoded.width == width && decoded.height == height)
        #expect(decoded.rgb.count == width * height * 3)
        return decoded.rgb
    }

    /// How far the pixel furthest from `colour` is from it, on the worst channel (0 when solid).
    /// A number, not a Bool of the pixels, so that a failure prints a value instead of every pixel.
    func deviation(_ rgb: [UInt8], from colour: (Int, Int, Int)) -> Int {
        stride(from: 0, to: rgb.count - 2, by: 3).reduce(0) {
            max($0, abs(Int(rgb[$1]) - colour.0), abs(Int(rgb[$1 + 1]) - colour.1), abs(Int(rgb[$1 + 2]) - colour.2))
        }
    }

    // MARK: Size

    @Test func aLandscapeJPEGFitsTheSizeWithItsAspect() throws {
        try inFolder { dir in
            let source = try picture("testsrc=s=1200x800", "a.jpg", in: dir)
            #expect(size(source) == [1200, 800])
            try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 300), width: 300, height: 200, in: dir)
            // 1000 does not divide by eighths into 300: DCT scaling to 375, then the area average to 300.
            let square = try picture("testsrc=s=1000x1000", "b.jpg", in: dir)
            try checkThumbnail(try Thumbnailer.thumbnail(of: square, size: 300), width: 300, height: 300, in: dir)
        }
    }

    @Test func aPortraitPNGFitsTheSizeWithItsAspect() throws {
        try inFolder { dir in
            let source = try picture("testsrc=s=800x1200", "a.png", in: dir)
            #expect(size(source) == [800, 1200])
            try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 300), width: 200, height: 300, in: dir)
            // Odd ratios round to the nearest pixel.
            let odd = try picture("testsrc=s=1001x333", "b.png", in: dir)
            try checkThumbnail(try Thumbnailer.thumbnail(of: odd, size: 250), width: 250, height: 83, in: dir)
        }
    }

    @Test func smallPicturesAreNotEnlarged() throws {
        try inFolder { dir in
            let jpeg = try picture("testsrc=s=64x48", "a.jpg", in: dir)
            try checkThumbnail(try Thumbnailer.thumbnail(of: jpeg, size: 300), width: 64, height: 48, in: dir)
            let png = try picture("testsrc=s=300x120", "b.png", in: dir)
            try checkThumbnail(try Thumbnailer.thumbnail(of: png, size: 300), width: 300, height: 120, in: dir)
        }
    }

    @Test func aThinBannerKeepsAtLeastOnePixel() throws {
        try inFolder { dir in
            let source = try picture("testsrc=s=2000x4", "a.png", in: dir)
            try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 100), width: 100, height: 1, in: dir)
        }
    }

    // MARK: Colour and scaling quality

    @Test func aSolidRedPictureStaysRed() throws {
        try inFolder { dir in
            for name in ["red.jpg", "red.png"] {
                let source = try picture("color=c=red:s=1000x700", name, in: dir)
                let rgb = try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 300), width: 300, height: 210, in: dir)
                #expect(deviation(rgb, from: (255, 0, 0)) <= 24, "\(name)")
            }
        }
    }

    @Test func transparentPixelsComeOutWhite() throws {
        try inFolder { dir in
            let clear = try picture("color=c=red:s=400x400,format=rgba,colorchannelmixer=aa=0", "clear.png", in: dir)
            let rgb = try checkThumbnail(try Thumbnailer.thumbnail(of: clear, size: 100), width: 100, height: 100, in: dir)
            #expect(deviation(rgb, from: (255, 255, 255)) <= 8)
            let opaque = try picture("color=c=blue:s=400x400,format=rgba", "opaque.png", in: dir)
            let blue = try checkThumbnail(try Thumbnailer.thumbnail(of: opaque, size: 100), width: 100, height: 100, in: dir)
            #expect(deviation(blue, from: (0, 0, 255)) <= 24)
        }
    }

    /// One-pixel black and white stripes must average to grey; point sampling would give black or white.
    /// At 2:1 every output pixel covers one of each; at 2.4:1 (600 -> 250) they cover 1 to 1.4 white pixels
    /// out of 2.4, so 106 to 149, averaging half.
    @Test func fineStripesAverageToGrey() throws {
        try inFolder { dir in
            let stripes = try picture("color=c=black:s=600x400,format=gray,geq=lum='255*mod(X\\,2)'", "stripes.png", in: dir)
            let half = try checkThumbnail(try Thumbnailer.thumbnail(of: stripes, size: 300), width: 300, height: 200, in: dir)
            #expect(deviation(half, from: (128, 128, 128)) <= 6)
            let odd = try checkThumbnail(try Thumbnailer.thumbnail(of: stripes, size: 250), width: 250, height: 167, in: dir)
            #expect(deviation(odd, from: (128, 128, 128)) <= 28)
            let mean = Double(odd.reduce(0) { $0 + Int($1) }) / Double(odd.count)
            #expect(abs(mean - 127.5) < 4)
        }
    }

    // MARK: Kinds of JPEG and PNG

    enum Kind: String, CaseIterable, Sendable {
        case jpeg420, jpeg444, greyJPEG, progressiveJPEG, cmykJPEG, ycckJPEG
        case rgbPNG, rgbaPNG, greyPNG, greyAlphaPNG, palettePNG, rgb48PNG, rgba64PNG, grey16PNG, bilevelPNG, interlacedPNG
    }

    /// A 400x300 test pattern of `kind`.
    func testPattern(_ kind: Kind, in dir: URL) throws -> Data {
        let source = "testsrc=s=400x300"
        switch kind {
        case .jpeg420: return try picture(source, "a.jpg", in: dir)
        case .jpeg444: return try picture(source, "a.jpg", ["-pix_fmt", "yuvj444p"], in: dir)
        case .greyJPEG:
            return try Thumbnailer.encodeJPEG(try rawPixels(source, format: "gray", in: dir), width: 400, height: 300, components: 1)
        case .progressiveJPEG:
            let data = try Thumbnailer.encodeJPEG(try rawPixels(source, format: "rgb24", in: dir), width: 400, height: 300,
                                                  components: 3, progressive: true)
            #expect(frame(of: data)?.marker == 0xC2)
            return data
        case .cmykJPEG, .ycckJPEG:
            let data = try Thumbnailer.encodeJPEG(cmyk(try rawPixels(source, format: "rgb24", in: dir)), width: 400, height: 300,
                                                  components: 4, ycck: kind == .ycckJPEG)
            #expect(frame(of: data)?.components == 4)
            return data
        case .rgbPNG: return try picture(source, "a.png", in: dir)
        case .rgbaPNG: return try picture(source, "a.png", ["-pix_fmt", "rgba"], in: dir)
        case .greyPNG: return try picture(source, "a.png", ["-pix_fmt", "gray"], in: dir)
        case .greyAlphaPNG: return try picture(source, "a.png", ["-pix_fmt", "ya8"], in: dir)
        case .palettePNG: return try picture(source, "a.png", ["-pix_fmt", "pal8"], in: dir)
        case .rgb48PNG: return try picture(source, "a.png", ["-pix_fmt", "rgb48be"], in: dir)
        case .rgba64PNG: return try picture(source, "a.png", ["-pix_fmt", "rgba64be"], in: dir)
        case .grey16PNG: return try picture(source, "a.png", ["-pix_fmt", "gray16be"], in: dir)
        case .bilevelPNG: return try picture(source, "a.png", ["-pix_fmt", "monob"], in: dir)
        // ffmpeg writes Adam7 when asked for "interlaced DCT".
        case .interlacedPNG: return try picture(source, "a.png", ["-flags", "+ildct"], in: dir)
        }
    }

    /// RGB to CMYK as Photoshop stores it (255 minus the ink), which is what Adobe-marked JPEGs hold.
    func cmyk(_ rgb: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rgb.count / 3 * 4)
        for i in stride(from: 0, to: rgb.count, by: 3) {
            let top = max(rgb[i], rgb[i + 1], rgb[i + 2])
            func scaled(_ v: UInt8) -> UInt8 { top == 0 ? 255 : UInt8(Int(v) * 255 / Int(top)) }
            out += [scaled(rgb[i]), scaled(rgb[i + 1]), scaled(rgb[i + 2]), top]
        }
        return out
    }

    @Test(arguments: Kind.allCases) func everyKindMakesAThumbnail(_ kind: Kind) throws {
        try inFolder { dir in
            let source = try testPattern(kind, in: dir)
            #expect(size(source) == [400, 300])
            try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 100), width: 100, height: 75, in: dir)
        }
    }

    @Test(arguments: [false, true]) func cmykRedStaysRed(ycck: Bool) throws {
        try inFolder { dir in
            let red = [UInt8](repeating: 0, count: 200 * 200 * 3).enumerated().map { $0.offset % 3 == 0 ? UInt8(255) : 0 }
            let source = try Thumbnailer.encodeJPEG(cmyk(red), width: 200, height: 200, components: 4, ycck: ycck)
            let rgb = try checkThumbnail(try Thumbnailer.thumbnail(of: source, size: 50), width: 50, height: 50, in: dir)
            #expect(deviation(rgb, from: (255, 0, 0)) <= 24)
        }
    }

    /// Lossless JPEG (SOF3) is valid JPEG that libjpeg-turbo 2 does not decode: it must say so, not crash.
    @Test func losslessJPEGIsRefusedAsUnsupported() throws {
        try inFolder { dir in
            let source = try picture("testsrc=s=64x48", "a.jpg", ["-c:v", "ljpeg"], in: dir)
            #expect(frame(of: source)?.marker == 0xC3)
            let error = #expect(throws: ArtworkError.self) { try Thumbnailer.thumbnail(of: source, size: 32) }
            guard case let .unsupportedFormat(what) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(what.contains("SOF type 0xc3"))
            #expect(Thumbnailer.dimensions(of: source) == nil)
        }
    }

    // MARK: Broken and hostile data

    @Test func emptyGarbageAndForeignDataThrow() throws {
        var garbage = SystemRandomNumberGenerator()
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &garbage) })
        let jpegMagic = Data([0xFF, 0xD8, 0xFF, 0xE0]) + noise
        let pngMagic = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + noise
        let gif = Data("GIF89a".utf8) + noise
        for (name, data) in [("empty", Data()), ("noise", Data([0x00]) + noise), ("jpeg magic", jpegMagic),
                             ("png magic", pngMagic), ("gif", gif), ("one byte", Data([0xFF]))] {
            let error = #expect(throws: ArtworkError.self, "\(name)") { try Thumbnailer.thumbnail(of: data, size: 100) }
            #expect(error.map { !$0.description.isEmpty } == true, "\(name)")
            #expect(Thumbnailer.dimensions(of: data) == nil, "\(name)")
        }
        let gifError = #expect(throws: ArtworkError.self) { try Thumbnailer.thumbnail(of: gif, size: 100) }
        #expect(gifError == .unsupportedFormat("a GIF image"))
    }

    @Test(arguments: [Kind.jpeg420, .progressiveJPEG, .rgbPNG, .interlacedPNG]) func truncatedDataThrows(_ kind: Kind) throws {
        try inFolder { dir in
            let source = try testPattern(kind, in: dir)
            for cut in [source.count / 2, source.count * 9 / 10, 40] {
                let error = #expect(throws: ArtworkError.self, "\(kind) cut at \(cut) of \(source.count)") {
                    try Thumbnailer.thumbnail(of: source.prefix(cut), size: 100)
                }
                if case .undecodable? = error {} else if let error { Issue.record("not .undecodable: \(error)") }
            }
            // A slice that does not start at index 0 reads the same as a copy.
            let offset = Data([0, 1, 2]) + source
            try checkThumbnail(try Thumbnailer.thumbnail(of: offset.dropFirst(3), size: 100), width: 100, height: 75, in: dir)
        }
    }

    /// A real PNG whose header is rewritten to claim 100000x100000 (30 GB of RGB): refused from the header.
    @Test func aPNGClaimingTenGigapixelsIsTooLarge() throws {
        try inFolder { dir in
            var png = [UInt8](try picture("testsrc=s=64x64", "a.png", in: dir))
            #expect(String(decoding: png[12..<16], as: UTF8.self) == "IHDR")
            for (offset, value) in [(16, 100_000), (20, 100_000)] {
                for i in 0..<4 { png[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
            }
            let crc = crc32(png[12..<29])
            for i in 0..<4 { png[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
            let bomb = Data(png)
            #expect(size(bomb) == [100_000, 100_000])
            let error = #expect(throws: ArtworkError.self) { try Thumbnailer.thumbnail(of: bomb, size: 300) }
            #expect(error == .tooLarge(width: 100_000, height: 100_000))
            #expect(error?.description.contains("100000x100000") == true)
        }
    }

    @Test func aJPEGClaimingFourGigapixelsIsTooLarge() throws {
        try inFolder { dir in
            var jpeg = [UInt8](try picture("testsrc=s=64x64", "a.jpg", in: dir))
            // SOF: FF Cx, length (2), precision (1), height (2), width (2).
            var i = 2
            while i + 9 < jpeg.count, jpeg[i + 1] != 0xC0 { i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])) }
            #expect(jpeg[i + 1] == 0xC0)
            for o in [i + 5, i + 7] { jpeg[o] = 0xFD; jpeg[o + 1] = 0xE8 }  // 65000
            let bomb = Data(jpeg)
            #expect(size(bomb) == [65000, 65000])
            let error = #expect(throws: ArtworkError.self) { try Thumbnailer.thumbnail(of: bomb, size: 300) }
            #expect(error == .tooLarge(width: 65000, height: 65000))
        }
    }

    @Test func aSizeBelowOneIsRefused() throws {
        try inFolder { dir in
            let source = try picture("testsrc=s=64x48", "a.jpg", in: dir)
            #expect(throws: ArtworkError.invalidSize(0)) { try Thumbnailer.thumbnail(of: source, size: 0) }
        }
    }

    /// The whole point of the C shim: errors unwind per call, so threads decoding good and broken pictures
    /// at once do not disturb one another.
    @Test func manyThreadsAtOnce() throws {
        try inFolder { dir in
            let red = try picture("color=c=red:s=900x600", "red.jpg", in: dir)
            let blue = try picture("color=c=blue:s=600x900", "blue.png", in: dir)
            let inputs: [Data] = [red, blue, red.prefix(red.count / 2), blue.prefix(blue.count / 2)]
            let results = Mutex<[Int: Result<Data, ArtworkError>]>([:])
            DispatchQueue.concurrentPerform(iterations: 32) { i in
                let result = Result { () throws(ArtworkError) -> Data in try Thumbnailer.thumbnail(of: inputs[i % 4], size: 120) }
                results.withLock { $0[i] = result }
            }
            let all = results.withLock { $0 }
            #expect(all.count == 32)
            for (i, result) in all {
                switch (i % 4, result) {
                case (0, .success(let thumb)): #expect(size(thumb) == [120, 80])
                case (1, .success(let thumb)): #expect(size(thumb) == [80, 120])
                case (2, .failure), (3, .failure): break
                default: Issue.record("input \(i % 4): \(result)")
                }
            }
            let first = try #require(all[0])
            let rgb = try decodeWithFFmpeg(try first.get(), in: dir).rgb
            #expect(deviation(rgb, from: (255, 0, 0)) <= 24)
        }
    }

    /// PNG's CRC-32 (ISO 3309, reflected, polynomial 0xEDB88320).
    func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
