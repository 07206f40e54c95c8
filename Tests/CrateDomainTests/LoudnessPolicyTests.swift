import CrateDomain
import Foundation
import Testing

/// Issue 17 item 5: the loudness tags (ReplayGain, Opus R128) as the tag mapper converts them, and the gain the
/// player chooses from them by mode, pre-amp and clipping prevention.
@Suite struct LoudnessPolicyTests {
    @Test func replayGainVorbisCommentsAreReadAsTheyAre() {
        var m = TagMapper()
        for c in ["REPLAYGAIN_TRACK_GAIN=-6.48 dB", "replaygain_track_peak=0.988312", "REPLAYGAIN_ALBUM_GAIN=+1.25 dB",
                  "REPLAYGAIN_ALBUM_PEAK=1.0132", "REPLAYGAIN_TRACK_GAIN=-1 dB"] {
            m.vorbisComment(c)
        }
        let rg = m.tags.replayGain
        #expect(rg == ReplayGainTags(trackGain: -6.48, trackPeak: 0.988312, albumGain: 1.25, albumPeak: 1.0132))
    }

    /// RFC 7845 §5.2.1: Q7.8 dB towards −23 LUFS; in ReplayGain terms (−18 LUFS) 5 dB more. They win over
    /// REPLAYGAIN_* comments in the same file, whichever comes first.
    @Test func opusR128GainsAreConvertedToTheReplayGainReference() {
        var m = TagMapper()
        m.vorbisComment("REPLAYGAIN_TRACK_GAIN=-9.00 dB")
        m.vorbisComment("R128_TRACK_GAIN=-1234")
        m.vorbisComment("R128_ALBUM_GAIN=512")
        m.vorbisComment("REPLAYGAIN_ALBUM_GAIN=-9.00 dB")
        let rg = m.tags.replayGain
        #expect(rg?.trackGain == -1234.0 / 256 + 5)
        #expect(rg?.albumGain == 512.0 / 256 + 5)
        #expect(Loudness.replayGain(fromR128: 0) == 5)
        // Out of range or not an integer: ignored.
        var bad = TagMapper()
        bad.vorbisComment("R128_TRACK_GAIN=40000")
        bad.vorbisComment("R128_ALBUM_GAIN=-3.5")
        #expect(bad.tags.replayGain == nil)
    }

    @Test func id3UserTextFramesCarryReplayGain() {
        var m = TagMapper()
        m.id3Frame("TXXX", "-3.50 dB\u{0}", description: "replaygain_track_gain")
        m.id3Frame("TXXX", "0,5", description: "REPLAYGAIN_ALBUM_PEAK")
        m.id3Frame("TXXX", "loud", description: "REPLAYGAIN_ALBUM_GAIN")
        #expect(m.tags.replayGain == ReplayGainTags(trackGain: -3.5, albumPeak: 0.5))
    }

    @Test func gainsAndPeaksOutsideAnyRealRangeAreIgnored() {
        #expect(ReplayGainTags.parseGain("-61 dB") == nil)
        #expect(ReplayGainTags.parseGain("nan") == nil)
        #expect(ReplayGainTags.parseGain(" -2.5dB ") == -2.5)
        #expect(ReplayGainTags.parsePeak("0") == nil)
        #expect(ReplayGainTags.parsePeak("-0.5") == nil)
        #expect(ReplayGainTags.parsePeak("1.5") == 1.5)
    }

    let loudness = TrackLoudness(track: GainValue(gain: -4, peak: 0.5, origin: .scan),
                                 album: GainValue(gain: -7, peak: 0.9, origin: .tags))

    @Test func modesChooseTheirGainAndFallBackToTheOther() {
        func decide(_ mode: LoudnessMode, _ values: TrackLoudness, inOrder: Bool = false) -> LoudnessDecision {
            LoudnessPolicy(mode: mode).decide(values, inAlbumOrder: inOrder)
        }
        #expect(decide(.off, loudness).source == .none && decide(.off, loudness).gainDB == 0)
        #expect(decide(.track, loudness).source == .track && decide(.track, loudness).gainDB == -4)
        #expect(decide(.album, loudness).source == .album && decide(.album, loudness).gainDB == -7)
        #expect(decide(.album, loudness).origin == .tags)
        #expect(decide(.auto, loudness, inOrder: true).source == .album)
        #expect(decide(.auto, loudness, inOrder: false).source == .track)
        // Missing one, the other serves.
        #expect(decide(.album, TrackLoudness(track: loudness.track)).source == .track)
        #expect(decide(.track, TrackLoudness(album: loudness.album)).source == .album)
        // Nothing known: no gain, and no pre-amp either.
        let none = LoudnessPolicy(mode: .track, preamp: 6).decide(TrackLoudness(), inAlbumOrder: false)
        #expect(none.source == .none && none.gainDB == 0 && none.linearGain == 1)
    }

    @Test func preampIsAddedAndClippingPreventionCapsTheGainAtThePeak() {
        let quiet = TrackLoudness(track: GainValue(gain: 9, peak: 0.5, origin: .scan))
        // +9 dB on a peak of 0.5 (−6.02 dBFS) would clip: capped at +6.02 dB.
        let capped = LoudnessPolicy(mode: .track).decide(quiet, inAlbumOrder: false)
        #expect(capped.clippingPrevented)
        #expect(abs(capped.gainDB - 20 * log10(2.0)) < 1e-9)
        #expect(Double(capped.linearGain) * 0.5 <= 1.000001)
        let free = LoudnessPolicy(mode: .track, preventClipping: false).decide(quiet, inAlbumOrder: false)
        #expect(!free.clippingPrevented && free.gainDB == 9)
        let preamp = LoudnessPolicy(mode: .track, preamp: -2).decide(quiet, inAlbumOrder: false)
        #expect(preamp.clippingPrevented && abs(preamp.gainDB - 20 * log10(2.0)) < 1e-9)
        let lowered = LoudnessPolicy(mode: .track, preamp: -4).decide(quiet, inAlbumOrder: false)
        #expect(!lowered.clippingPrevented && lowered.gainDB == 5 && lowered.preampDB == -4)
        // No peak known (Opus tags): nothing to cap by.
        let opus = LoudnessPolicy(mode: .track, preamp: 3).decide(TrackLoudness(track: GainValue(gain: 2, peak: nil, origin: .tags)),
                                                                  inAlbumOrder: false)
        #expect(opus.gainDB == 5 && !opus.clippingPrevented)
    }

    @Test func scansWinOverTagsAndSilenceHasNoGain() {
        let scan = LoudnessMeasurement(integrated: -9, truePeak: 1.1, samplePeak: 1, seconds: 10)
        let tags = ReplayGainTags(trackGain: -5, trackPeak: 0.9, albumGain: -6, albumPeak: 0.95)
        let both = TrackLoudness(trackScan: scan, albumScan: nil, tags: tags)
        #expect(both.track == GainValue(gain: -9, peak: 1.1, origin: .scan))
        #expect(both.album == GainValue(gain: -6, peak: 0.95, origin: .tags))
        let silent = TrackLoudness(trackScan: LoudnessMeasurement(integrated: nil, truePeak: 0, samplePeak: 0, seconds: 3),
                                   albumScan: nil, tags: nil)
        #expect(silent.track == nil)
    }
}
