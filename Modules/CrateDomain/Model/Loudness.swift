import Foundation

/// Loudness normalisation: what the tags say, what a scan measured, and the gain the player applies.
///
/// Every gain here is a ReplayGain 2.0 gain: the decibels that bring the track (or album) to the reference
/// loudness of **−18 LUFS** (ReplayGain 1's "89 dB SPL", as ReplayGain 2.0 defines it in EBU R128 terms). Peaks are
/// linear, 1.0 being full scale. Other conventions are converted when read:
///
/// - `REPLAYGAIN_TRACK_GAIN` / `_ALBUM_GAIN` ("-6.48 dB"; Vorbis comments in FLAC and Ogg Vorbis, ID3v2
///   `TXXX:REPLAYGAIN_*` in MP3 and WAV) are taken as they are; `REPLAYGAIN_*_PEAK` ("0.988") too.
/// - Opus `R128_TRACK_GAIN` / `R128_ALBUM_GAIN` (RFC 7845 §5.2.1) are Q7.8 fixed point (a signed 16-bit integer in
///   1/256 dB) that bring the track to **−23 LUFS**, applied in addition to the header's output gain. opusfile
///   already applies the output gain when decoding, so the decoded PCM is what the tag is relative to, and the
///   ReplayGain gain is `value / 256 + 5` (−18 − (−23) = 5 dB louder). Opus has no peak tags.
/// - A scan measures the decoded PCM's integrated loudness `L` (EBU R128 / ITU-R BS.1770-4) and true peak; its gain
///   is `−18 − L`.
public enum Loudness {
    /// ReplayGain 2.0's reference loudness, LUFS.
    public static let referenceLUFS = -18.0
    /// EBU R128's target loudness, LUFS, which Opus R128 gains aim at.
    public static let r128LUFS = -23.0

    /// The ReplayGain gain (dB) that brings audio of integrated loudness `lufs` to the reference.
    public static func gain(forIntegrated lufs: Double) -> Double { referenceLUFS - lufs }

    /// An Opus `R128_*_GAIN` value (Q7.8 dB towards −23 LUFS) as a ReplayGain gain (dB towards −18 LUFS).
    public static func replayGain(fromR128 q78: Int) -> Double { Double(q78) / 256 + (referenceLUFS - r128LUFS) }

    /// Decibels to a linear amplitude factor.
    public static func linear(_ decibels: Double) -> Double { pow(10, decibels / 20) }

    /// A linear amplitude to decibels (−∞ for 0).
    public static func decibels(_ linear: Double) -> Double { 20 * log10(linear) }
}

/// The loudness fields of a file's tags, already converted to ReplayGain 2.0 terms (see `Loudness`).
public struct ReplayGainTags: Sendable, Hashable, Codable {
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    public var isEmpty: Bool { trackGain == nil && trackPeak == nil && albumGain == nil && albumPeak == nil }

    /// "-6.48 dB", "+1.2 dB", "-6,48" (a comma from a locale-bound tagger), "-6.48": the decibels; nil when the text
    /// is not a number or the value is beyond any real gain (±60 dB).
    public static func parseGain(_ text: String) -> Double? {
        var t = text.trimming(\.isPadding).replacingOccurrences(of: ",", with: ".")
        if t.lowercased().hasSuffix("db") { t = t.dropLast(2).trimming(\.isBlank) }
        if t.hasPrefix("+") { t.removeFirst() }
        guard let value = Double(t), value.isFinite, abs(value) <= 60 else { return nil }
        return value
    }

    /// "0.988" (linear, 1 = full scale); nil unless it is a positive number below 100 (a float file can exceed 1).
    public static func parsePeak(_ text: String) -> Double? {
        let t = text.trimming(\.isPadding).replacingOccurrences(of: ",", with: ".")
        guard let value = Double(t), value.isFinite, value > 0, value < 100 else { return nil }
        return value
    }

    /// An Opus R128 gain: a decimal signed 16-bit integer (RFC 7845 §5.2.1), converted to a ReplayGain gain.
    public static func parseR128(_ text: String) -> Double? {
        let t = text.trimming(\.isPadding)
        guard let q78 = Int(t), (-32768...32767).contains(q78) else { return nil }
        return Loudness.replayGain(fromR128: q78)
    }
}

/// What a loudness scan measured for a track or an album: EBU R128 integrated loudness and peaks.
public struct LoudnessMeasurement: Sendable, Hashable, Codable {
    /// Integrated loudness, LUFS; nil when the audio is all below the absolute gate (−70 LUFS: silence).
    public var integrated: Double?
    /// The true peak (4× oversampled), linear, the highest of all channels.
    public var truePeak: Double
    /// The highest sample, linear.
    public var samplePeak: Double
    /// Seconds of audio measured.
    public var seconds: Double

    public init(integrated: Double?, truePeak: Double, samplePeak: Double, seconds: Double) {
        self.integrated = integrated
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.seconds = seconds
    }

    /// The ReplayGain 2.0 gain towards −18 LUFS; nil for silence.
    public var gain: Double? { integrated.map(Loudness.gain(forIntegrated:)) }
}

/// One gain the player may apply, with where it came from.
public struct GainValue: Sendable, Hashable, Codable {
    public enum Origin: String, Sendable, Hashable, Codable {
        /// Measured by `crate loudness scan`.
        case scan
        /// Read from the file's ReplayGain or R128 tags.
        case tags
    }

    /// dB towards −18 LUFS.
    public var gain: Double
    /// Linear; nil when unknown (Opus tags carry none).
    public var peak: Double?
    public var origin: Origin

    public init(gain: Double, peak: Double?, origin: Origin) {
        self.gain = gain
        self.peak = peak
        self.origin = origin
    }
}

/// What the library knows about one track's loudness: the track's gain and its album's, each from the scan when
/// one is current, else from the tags.
public struct TrackLoudness: Sendable, Hashable, Codable {
    public var track: GainValue?
    public var album: GainValue?

    public init(track: GainValue? = nil, album: GainValue? = nil) {
        self.track = track
        self.album = album
    }

    /// Measurements first (they are Crate's own and current), the tags for what was not measured.
    public init(trackScan: LoudnessMeasurement?, albumScan: LoudnessMeasurement?, tags: ReplayGainTags?) {
        if let scan = trackScan, let gain = scan.gain {
            track = GainValue(gain: gain, peak: scan.truePeak, origin: .scan)
        } else if let gain = tags?.trackGain {
            track = GainValue(gain: gain, peak: tags?.trackPeak, origin: .tags)
        }
        if let scan = albumScan, let gain = scan.gain {
            album = GainValue(gain: gain, peak: scan.truePeak, origin: .scan)
        } else if let gain = tags?.albumGain {
            album = GainValue(gain: gain, peak: tags?.albumPeak ?? tags?.trackPeak, origin: .tags)
        }
    }
}

/// `player.replaygain`: which gain the player applies.
public enum LoudnessMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No gain.
    case off
    /// Each track at the reference loudness (the album gain when a track has none).
    case track
    /// Every track of an album by the same gain, so the album keeps its own dynamics (the track gain when there is no
    /// album gain).
    case album
    /// The album gain while an album plays through in order, the track gain otherwise.
    case auto
}

/// The loudness settings: `player.replaygain`, `player.replaygain_preamp`, `player.replaygain_prevent_clipping`.
public struct LoudnessPolicy: Sendable, Hashable, Codable {
    public var mode: LoudnessMode
    /// Added to every gain applied (not to tracks without any gain information), dB.
    public var preamp: Double
    /// Lowers a gain so the known peak times the gain stays at or below full scale.
    public var preventClipping: Bool

    public static let preampRange = -15.0...15.0

    public init(mode: LoudnessMode = .auto, preamp: Double = 0, preventClipping: Bool = true) {
        self.mode = mode
        self.preamp = preamp
        self.preventClipping = preventClipping
    }

    /// The gain for a track. `inAlbumOrder`: the track plays as part of its album, in order (for `auto`).
    public func decide(_ loudness: TrackLoudness, inAlbumOrder: Bool) -> LoudnessDecision {
        let preferAlbum: Bool
        switch mode {
        case .off: return LoudnessDecision(mode: mode, gainDB: 0, source: .none, origin: nil, preampDB: 0, clippingPrevented: false)
        case .track: preferAlbum = false
        case .album: preferAlbum = true
        case .auto: preferAlbum = inAlbumOrder
        }
        let chosen: (GainValue, LoudnessDecision.Source)?
        if preferAlbum {
            chosen = loudness.album.map { ($0, .album) } ?? loudness.track.map { ($0, .track) }
        } else {
            chosen = loudness.track.map { ($0, .track) } ?? loudness.album.map { ($0, .album) }
        }
        guard let (value, source) = chosen else {
            return LoudnessDecision(mode: mode, gainDB: 0, source: .none, origin: nil, preampDB: 0, clippingPrevented: false)
        }
        var gain = value.gain + preamp
        var prevented = false
        if preventClipping, let peak = value.peak, peak > 0 {
            // The loudest the peak may be made is full scale: gain ≤ −20·log10(peak).
            let ceiling = -Loudness.decibels(peak)
            if gain > ceiling {
                gain = ceiling
                prevented = true
            }
        }
        return LoudnessDecision(mode: mode, gainDB: gain, source: source, origin: value.origin, preampDB: preamp,
                                clippingPrevented: prevented)
    }
}

/// The gain the player applies to the track playing, as the status shows it.
public struct LoudnessDecision: Sendable, Hashable, Codable {
    public enum Source: String, Sendable, Hashable, Codable {
        case album, track, none
    }

    public var mode: LoudnessMode
    /// The gain applied, dB (pre-amp and clipping prevention included); 0 with source `none`.
    public var gainDB: Double
    /// Which gain: the album's, the track's, or none (mode off, or nothing known).
    public var source: Source
    /// Where the gain came from: a scan or the tags; nil with source `none`.
    public var origin: GainValue.Origin?
    /// The pre-amp included in `gainDB`.
    public var preampDB: Double
    /// The gain was lowered so the peak does not clip.
    public var clippingPrevented: Bool

    public init(mode: LoudnessMode, gainDB: Double, source: Source, origin: GainValue.Origin?, preampDB: Double,
                clippingPrevented: Bool) {
        self.mode = mode
        self.gainDB = gainDB
        self.source = source
        self.origin = origin
        self.preampDB = preampDB
        self.clippingPrevented = clippingPrevented
    }

    /// The linear factor the engine multiplies the samples by.
    public var linearGain: Float { Float(Loudness.linear(gainDB)) }
}

/// One track's loudness as `crate loudness show` lists it.
public struct TrackLoudnessInfo: Sendable, Hashable, Codable {
    public var trackID: Int64
    public var title: String
    public var discNumber: Int?
    public var trackNumber: Int?
    /// The current scan; nil when never measured or measured before the file changed (`stale`).
    public var scan: LoudnessMeasurement?
    /// A scan exists but the file changed since.
    public var stale: Bool
    public var tags: ReplayGainTags?

    public init(trackID: Int64, title: String, discNumber: Int?, trackNumber: Int?, scan: LoudnessMeasurement?, stale: Bool,
                tags: ReplayGainTags?) {
        self.trackID = trackID
        self.title = title
        self.discNumber = discNumber
        self.trackNumber = trackNumber
        self.scan = scan
        self.stale = stale
        self.tags = tags
    }
}

/// An album's loudness: its own scan (current only) and its tracks', in album order.
public struct AlbumLoudnessInfo: Sendable, Hashable, Codable {
    public var albumID: Int64
    public var title: String
    public var artist: String
    public var scan: LoudnessMeasurement?
    public var tracks: [TrackLoudnessInfo]

    public init(albumID: Int64, title: String, artist: String, scan: LoudnessMeasurement?, tracks: [TrackLoudnessInfo]) {
        self.albumID = albumID
        self.title = title
        self.artist = artist
        self.scan = scan
        self.tracks = tracks
    }
}

/// How much of the library has loudness information.
public struct LoudnessSummary: Sendable, Hashable, Codable {
    public var tracks = 0
    /// Tracks with a current scan.
    public var tracksScanned = 0
    /// Tracks with a scan made before their file changed.
    public var tracksStale = 0
    /// Tracks whose tags carry a track gain.
    public var tracksTagged = 0
    public var albums = 0
    /// Albums with a current album scan.
    public var albumsScanned = 0

    public init() {}
}
