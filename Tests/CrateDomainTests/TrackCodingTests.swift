import CrateDomain
import Foundation
import Testing

/// `Track` as JSON, the shape the HTTP API serves and the CLI reads back.
@Suite struct TrackCodingTests {
    static let track = Track(id: 7, ref: TrackRef(source: "file", id: "/m/2-01.flac"), albumID: 3, title: "Intro",
                             artist: "Band", albumArtist: "Band", album: "Double", genre: nil, date: "2001",
                             trackNumber: 1, trackTotal: 9, discNumber: 2, discTotal: 2, discSubtitle: "The Live Set",
                             duration: 61.5, info: StreamInfo(codec: "flac", sampleRate: 44100, channels: 2,
                                                              bitsPerSample: 16, frames: 2_712_150),
                             path: "/m/2-01.flac")

    @Test func theDiscSubtitleRoundTrips() throws {
        let json = try JSONEncoder().encode(Self.track)
        #expect(String(decoding: json, as: UTF8.self).contains(#""discSubtitle":"The Live Set""#))
        #expect(try JSONDecoder().decode(Track.self, from: json) == Self.track)
    }

    /// JSON from before the field (an older daemon, a saved answer) has no key: it decodes, without a subtitle; a track
    /// without one leaves the key out.
    @Test func jsonWithoutTheKeyDecodes() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.track)) as? [String: Any])
        object["discSubtitle"] = nil
        let old = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(Track.self, from: old)
        var expected = Self.track
        expected.discSubtitle = nil
        #expect(decoded == expected)
        #expect(!String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self).contains("discSubtitle"))
    }
}
