import CImageShim
public import Foundation

/// Wall-size thumbnails of cover pictures. libjpeg and libpng do the codec work through CImageShim
/// (C, because libjpeg's errors can only be unwound with longjmp); the scaling is here.
/// Stateless: safe to call from any number of threads at once.
public enum Thumbnailer {
    /// JPEG quality of thumbnails: clean at wall size while keeping the files small.
    static let jpegQuality = 85

    enum Format: Equatable { case jpeg, png }

    /// Decodes JPEG or PNG `data`, scales it to fit inside size x size keeping its aspect ratio
    /// (never enlarging), and encodes it as baseline JPEG (quality ~85, sRGB/RGB, 3 components).
    public static func thumbnail(of data: Data, size: Int) throws(ArtworkError) -> Data {
        guard size > 0 else { throw .invalidSize(size) }
        let format = try sniff(data)
        // withUnsafeBytes only rethrows untyped errors; carry ours out in a Result.
        let result: Result<Data, ArtworkError> = data.withUnsafeBytes { raw in
            Result { () throws(ArtworkError) -> Data in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    throw .undecodable(reason: "the picture is empty")
                }
                let image = try decode(base, count: raw.count, format: format, fittingInside: size)
                defer { crate_image_free(image.pixels) }
                let source = UnsafeBufferPointer(start: image.pixels, count: image.width * image.height * 3)
                let (width, height) = fit(width: image.width, height: image.height, inside: size)
                if width == image.width && height == image.height {
                    return try encodeJPEG(source, width: width, height: height, components: 3)
                }
                let scaled = downscale(source, width: image.width, height: image.height, toWidth: width, height: height)
                return try scaled.withUnsafeBufferPointer { (pixels) throws(ArtworkError) -> Data in
                    try encodeJPEG(pixels, width: width, height: height, components: 3)
                }
            }
        }
        return try result.get()
    }

    /// The picture squeezed to side × side RGB pixels (aspect ignored: every part of the cover counts), for
    /// colour analysis.
    public static func sample(of data: Data, side: Int) throws(ArtworkError) -> [UInt8] {
        guard side > 0 else { throw .invalidSize(side) }
        let format = try sniff(data)
        let result: Result<[UInt8], ArtworkError> = data.withUnsafeBytes { raw in
            Result { () throws(ArtworkError) -> [UInt8] in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    throw .undecodable(reason: "the picture is empty")
                }
                let image = try decode(base, count: raw.count, format: format, fittingInside: side)
                defer { crate_image_free(image.pixels) }
                let source = UnsafeBufferPointer(start: image.pixels, count: image.width * image.height * 3)
                return downscale(source, width: image.width, height: image.height, toWidth: min(side, image.width),
                                 height: min(side, image.height))
            }
        }
        return try result.get()
    }

    /// Width and height from the header only (no full decode), nil when not a JPEG/PNG Crate can read.
    /// Pictures over `ArtworkError.maximumPixels` still report their size, so callers can say why they fail.
    public static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        guard let format = try? sniff(data) else { return nil }
        return data.withUnsafeBytes { raw -> (width: Int, height: Int)? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var info = crate_image_info()
            let status = switch format {
            case .jpeg: crate_jpeg_read_header(base, raw.count, &info)
            case .png: crate_png_read_header(base, raw.count, &info)
            }
            guard status == CRATE_IMAGE_OK, info.width > 0, info.height > 0 else { return nil }
            return (Int(info.width), Int(info.height))
        }
    }

    /// The size of a width x height picture scaled to fit inside size x size, never larger than it was.
    static func fit(width: Int, height: Int, inside size: Int) -> (width: Int, height: Int) {
        guard width > size || height > size else { return (width, height) }
        // Rounded, and at least 1: a 3000x2 banner still makes a (very thin) picture.
        func scaled(_ short: Int, _ long: Int) -> Int { max(1, Int((Double(short) * Double(size) / Double(long)).rounded())) }
        return width >= height ? (size, scaled(height, width)) : (scaled(width, height), size)
    }

    // MARK: Format

    /// Which decoder to use, by the magic bytes (file names and MIME types of embedded pictures lie).
    static func sniff(_ data: Data) throws(ArtworkError) -> Format {
        let head = [UInt8](data.prefix(12))
        if head.isEmpty { throw .undecodable(reason: "the picture is empty") }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        let ascii = String(decoding: head, as: UTF8.self)
        if ascii.hasPrefix("GIF8") { throw .unsupportedFormat("a GIF image") }
        if ascii.hasPrefix("RIFF") && ascii.dropFirst(8).hasPrefix("WEBP") { throw .unsupportedFormat("a WebP image") }
        if ascii.hasPrefix("BM") { throw .unsupportedFormat("a BMP image") }
        if ascii.dropFirst(4).hasPrefix("ftyp") { throw .unsupportedFormat("an HEIF/AVIF image") }
        throw .unsupportedFormat("data that is neither JPEG nor PNG")
    }

    // MARK: Codecs

    /// RGB pixels from CImageShim's malloc; the caller releases them with crate_image_free.
    struct Decoded {
        var pixels: UnsafeMutablePointer<UInt8>
        var width: Int
        var height: Int
    }

    /// Decodes to RGB; a JPEG at the smallest DCT scale still at least the fitted size.
    static func decode(_ base: UnsafePointer<UInt8>, count: Int, format: Format,
                       fittingInside size: Int) throws(ArtworkError) -> Decoded {
        var info = crate_image_info()
        var out = crate_image_pixels()
        let limit = UInt64(ArtworkError.maximumPixels)
        let status: crate_image_status
        switch format {
        case .jpeg:
            // The header first, for the fitted size that picks the DCT scale.
            let header = crate_jpeg_read_header(base, count, &info)
            guard header == CRATE_IMAGE_OK else { throw error(header, info) }
            let target = fit(width: Int(info.width), height: Int(info.height), inside: size)
            status = crate_jpeg_decode(base, count, Int32(clamping: target.width), Int32(clamping: target.height),
                                       limit, &info, &out)
        case .png:
            status = crate_png_decode(base, count, limit, &info, &out)
        }
        guard status == CRATE_IMAGE_OK else { throw error(status, info) }
        guard let pixels = out.pixels, out.width > 0, out.height > 0 else {
            crate_image_free(out.pixels)
            throw .undecodable(reason: "the decoder returned no pixels")
        }
        return Decoded(pixels: pixels, width: Int(out.width), height: Int(out.height))
    }

    /// Encodes packed rows of `components` bytes per pixel (1 grey, 3 RGB, 4 CMYK inverted as Photoshop
    /// stores it). Thumbnails are baseline RGB; the other options exist so that tests can make progressive
    /// and CMYK files, which ffmpeg cannot write.
    static func encodeJPEG(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, components: Int,
                           quality: Int = jpegQuality, progressive: Bool = false, ycck: Bool = false) throws(ArtworkError) -> Data {
        guard width > 0, height > 0, pixels.count >= width * height * components, let base = pixels.baseAddress else {
            throw .encodingFailed(reason: "\(pixels.count) bytes do not hold \(width)x\(height) pixels of \(components) components")
        }
        var info = crate_image_info()
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let options = (progressive ? Int32(CRATE_JPEG_PROGRESSIVE) : 0) | (ycck ? Int32(CRATE_JPEG_YCCK) : 0)
        let status = crate_jpeg_encode(base, Int32(clamping: width), Int32(clamping: height), Int32(clamping: components),
                                       Int32(clamping: quality), options, &info, &out, &count)
        guard status == CRATE_IMAGE_OK, let out else {
            crate_image_free(out)
            throw .encodingFailed(reason: message(info))
        }
        // The bytes came from malloc; Data frees them when done instead of copying.
        return Data(bytesNoCopy: out, count: count, deallocator: .free)
    }

    static func encodeJPEG(_ pixels: [UInt8], width: Int, height: Int, components: Int, quality: Int = jpegQuality,
                           progressive: Bool = false, ycck: Bool = false) throws(ArtworkError) -> Data {
        try pixels.withUnsafeBufferPointer { (buffer) throws(ArtworkError) -> Data in
            try encodeJPEG(buffer, width: width, height: height, components: components, quality: quality,
                           progressive: progressive, ycck: ycck)
        }
    }

    private static func message(_ info: crate_image_info) -> String {
        withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func error(_ status: crate_image_status, _ info: crate_image_info) -> ArtworkError {
        let text = message(info)
        switch status {
        case CRATE_IMAGE_TOO_LARGE:
            return .tooLarge(width: Int(info.width), height: Int(info.height))
        case CRATE_IMAGE_UNSUPPORTED:
            return .unsupportedFormat(text)
        case CRATE_IMAGE_NO_MEMORY:
            return .undecodable(reason: "not enough memory for \(info.width)x\(info.height) pixels")
        default:
            return .undecodable(reason: text.isEmpty ? "the decoder gave no reason" : text)
        }
    }

    // MARK: Scaling

    /// Area-average weights of one axis: output pixel i covers source span [i * s/t, (i+1) * s/t), and each
    /// source pixel counts by how much of it lies inside. Exact integers in units of 1/target, so the
    /// weights of every output pixel sum to 1.
    struct AxisWeights {
        var first: [Int] = []   // first source index of each output pixel
        var offsets: [Int] = [0] // weights of output i are weights[offsets[i]..<offsets[i + 1]]
        var weights: [Float] = []

        init(source: Int, target: Int) {
            first.reserveCapacity(target)
            for i in 0..<target {
                let low = i * source, high = (i + 1) * source
                var j = low / target
                first.append(j)
                while j * target < high {
                    let covered = min(high, (j + 1) * target) - max(low, j * target)
                    weights.append(Float(covered) / Float(source))
                    j += 1
                }
                offsets.append(weights.count)
            }
        }
    }

    /// Box (area-average) downscale of packed RGB, separable: rows first into floats, then columns.
    /// Every source pixel contributes in proportion to its area, so fine detail averages out instead of aliasing.
    static func downscale(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                          toWidth outWidth: Int, height outHeight: Int) -> [UInt8] {
        let horizontal = AxisWeights(source: width, target: outWidth)
        let vertical = AxisWeights(source: height, target: outHeight)
        let rowLength = outWidth * 3
        var rows = [Float](repeating: 0, count: height * rowLength)
        rows.withUnsafeMutableBufferPointer { rows in
            horizontal.weights.withUnsafeBufferPointer { weights in
                for y in 0..<height {
                    let sourceRow = y * width * 3, targetRow = y * rowLength
                    for x in 0..<outWidth {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        var s = sourceRow + horizontal.first[x] * 3
                        for k in horizontal.offsets[x]..<horizontal.offsets[x + 1] {
                            let w = weights[k]
                            r += w * Float(source[s]); g += w * Float(source[s + 1]); b += w * Float(source[s + 2])
                            s += 3
                        }
                        rows[targetRow + x * 3] = r; rows[targetRow + x * 3 + 1] = g; rows[targetRow + x * 3 + 2] = b
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: outHeight * rowLength)
        var sum = [Float](repeating: 0, count: rowLength)
        rows.withUnsafeBufferPointer { rows in
            out.withUnsafeMutableBufferPointer { out in
                sum.withUnsafeMutableBufferPointer { sum in
                    for y in 0..<outHeight {
                        for i in 0..<rowLength { sum[i] = 0 }
                        for k in vertical.offsets[y]..<vertical.offsets[y + 1] {
                            let w = vertical.weights[k]
                            let row = (vertical.first[y] + k - vertical.offsets[y]) * rowLength
                            for i in 0..<rowLength { sum[i] += w * rows[row + i] }
                        }
                        let target = y * rowLength
                        for i in 0..<rowLength { out[target + i] = UInt8(min(255, max(0, sum[i].rounded()))) }
                    }
                }
            }
        }
        return out
    }
}
