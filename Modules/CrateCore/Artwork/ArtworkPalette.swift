public import Foundation

/// Two colours from a cover for the player's progress gradient (ADR-121), computed once when the artwork is
/// stored: the picture at 10×10, pixels quantized into 32-step RGB buckets, buckets scored by
/// frequency × saturation³ × a brightness floor (vivid colours beat whites, greys, pastels and near-blacks; buckets
/// under 0.15 saturation or 0.12 brightness are left out, unless nothing is left), the best one first and the best
/// one at least 60 away (Euclidean RGB) second; without such a one, the first shifted in brightness.
public enum ArtworkPalette {
    public static let side = 10
    static let step = 32
    static let minimumDistance = 60.0

    /// The two colours of a picture's bytes (JPEG or PNG) as `#rrggbb`; nil when it cannot be decoded.
    public static func colors(ofImage data: Data) -> [String]? {
        guard let pixels = try? Thumbnailer.sample(of: data, side: side) else { return nil }
        return colors(rgb: pixels)
    }

    /// The two colours of packed RGB pixels.
    public static func colors(rgb pixels: [UInt8]) -> [String]? {
        guard pixels.count >= 3 else { return nil }
        var buckets: [Int: Int] = [:]
        for i in stride(from: 0, to: pixels.count - 2, by: 3) {
            let key = ((Int(pixels[i]) / step) << 16) | ((Int(pixels[i + 1]) / step) << 8) | (Int(pixels[i + 2]) / step)
            buckets[key, default: 0] += 1
        }
        struct Candidate { var rgb: (Double, Double, Double); var count: Int; var score: Double }
        let candidates = buckets.map { key, count -> Candidate in
            // The bucket's centre.
            let rgb = (Double((key >> 16) * step + step / 2), Double(((key >> 8) & 0xFF) * step + step / 2),
                       Double((key & 0xFF) * step + step / 2))
            let (_, saturation, brightness) = hsb(rgb)
            return Candidate(rgb: rgb, count: count,
                             score: Double(count) * pow(saturation, 3) * max(brightness, 0.3))
        }
        let vivid = candidates.filter { c in
            let (_, s, b) = hsb(c.rgb)
            return s >= 0.15 && b >= 0.12
        }
        // Monochrome art: plain frequency decides.
        let ranked = vivid.isEmpty
            ? candidates.sorted { ($0.count, key($0.rgb)) > ($1.count, key($1.rgb)) }
            : vivid.sorted { ($0.score, key($0.rgb)) > ($1.score, key($1.rgb)) }
        guard let first = ranked.first else { return nil }
        let second = ranked.dropFirst().first { distance($0.rgb, first.rgb) >= minimumDistance }?.rgb ?? shifted(first.rgb)
        return [hex(first.rgb), hex(second)]
    }

    /// A tie-break that does not depend on dictionary order.
    private static func key(_ rgb: (Double, Double, Double)) -> Double { rgb.0 * 65536 + rgb.1 * 256 + rgb.2 }

    static func hsb(_ rgb: (Double, Double, Double)) -> (Double, Double, Double) {
        let r = rgb.0 / 255, g = rgb.1 / 255, b = rgb.2 / 255
        let high = max(r, g, b), low = min(r, g, b)
        let saturation = high == 0 ? 0 : (high - low) / high
        var hue = 0.0
        if high != low {
            switch high {
            case r: hue = (g - b) / (high - low) + (g < b ? 6 : 0)
            case g: hue = (b - r) / (high - low) + 2
            default: hue = (r - g) / (high - low) + 4
            }
            hue /= 6
        }
        return (hue, saturation, high)
    }

    static func distance(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2)).squareRoot()
    }

    /// A second colour from the first: darker when it is bright, lighter when it is dark.
    static func shifted(_ rgb: (Double, Double, Double)) -> (Double, Double, Double) {
        let (_, _, brightness) = hsb(rgb)
        let factor = brightness > 0.5 ? 0.55 : 1.8
        return (min(255, rgb.0 * factor + (factor > 1 ? 40 : 0)), min(255, rgb.1 * factor + (factor > 1 ? 40 : 0)),
                min(255, rgb.2 * factor + (factor > 1 ? 40 : 0)))
    }

    static func hex(_ rgb: (Double, Double, Double)) -> String {
        func byte(_ v: Double) -> String {
            let n = Int(max(0, min(255, v.rounded())))
            return String(n, radix: 16).count == 1 ? "0" + String(n, radix: 16) : String(n, radix: 16)
        }
        return "#" + byte(rgb.0) + byte(rgb.1) + byte(rgb.2)
    }
}
