@testable import AppleCatalogREST
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

@Suite(.promptly) struct AlbumTests {
    static let cover600 = CatalogFixtures.artworkTemplate.replacingOccurrences(of: "{w}x{h}", with: "600x600")

    @Test func albumWithTracksMapsIntoTheDomainTypes() async throws {
        try await withCatalog { server, client, _ in
            let (album, tracks) = try await client.album(id: FakeAppleMusicRoutes.detailedAlbumID)
            #expect(album.id == 1_500_000_001)
            #expect(album.identity == "applemusic:1500000001" && album.externalID == "1500000001")
            #expect(album.title == "Kind of Invented" && album.artist == "The Invented Quartet")
            #expect(album.source == "applemusic")
            #expect(album.genre == "Jazz" && album.genres == ["Jazz", "Bebop"])
            #expect(album.date == "1959-08-17" && album.year == 1959)
            #expect(album.trackCount == 6)         // Apple's count (it includes the music video)
            #expect(album.discCount == 2)
            #expect(album.duration == 1000)        // 300 + 250 + 200 + 150 + 100 s
            #expect(album.isCompilation == false)
            #expect(album.addedAt == Date(timeIntervalSince1970: 0))
            #expect(album.artworkURL == Self.cover600)

            // The music video is not a track; songs keep their order, numbers and previews.
            #expect(tracks.map(\.title) == ["Part 1", "Part 2", "Part 3", "Part 4", "Part 5"])
            #expect(tracks.map(\.trackNumber) == [1, 2, 3, 1, 2])
            #expect(tracks.map(\.discNumber) == [1, 1, 1, 2, 2])
            #expect(tracks.map(\.trackTotal) == [3, 3, 3, 2, 2])
            #expect(tracks.allSatisfy { $0.discTotal == 2 && $0.albumID == 1_500_000_001 && $0.album == "Kind of Invented" })
            #expect(tracks.map(\.duration) == [300, 250, 200, 150, 100])
            let first = try #require(tracks.first)
            #expect(first.ref == TrackRef(source: "applemusic", id: "1500000101"))
            #expect(first.id == 1_500_000_101)
            #expect(first.info == StreamInfo(codec: "aac", sampleRate: 44_100, channels: 2))
            #expect(first.path == nil && !first.playableInFull)
            #expect(first.previewURL == "https://audio-ssl.itunes.apple.com/itunes-assets/AudioPreview126/v4/aa/bb/cc/fake-1500000101/mzaf_1500000101.plus.aac.p.m4a")
            #expect(first.genre == "Jazz" && first.date == "1959-08-17")
            #expect(tracks[2].previewURL == nil)   // `previews: []`
            #expect(tracks[4].artist == "The Invented Quartet feat. A Guest" && tracks[4].albumArtist == "The Invented Quartet")
            #expect(tracks.allSatisfy { !$0.playableInFull })

            // Another size: only {w} and {h} change.
            let small = try await client.album(id: FakeAppleMusicRoutes.detailedAlbumID, artworkSize: 300).album
            #expect(small.artworkURL == CatalogFixtures.artworkTemplate.replacingOccurrences(of: "{w}x{h}", with: "300x300"))
            _ = server
        }
    }

    @Test func yearOnlyReleaseDateNoArtworkOnlyMusicGenre() async throws {
        try await withCatalog { _, client, _ in
            let (album, tracks) = try await client.album(id: FakeAppleMusicRoutes.yearOnlyAlbumID)
            #expect(album.date == "1972" && album.year == 1972)
            #expect(album.artworkURL == nil)
            #expect(album.genre == nil && album.genres.isEmpty)
            #expect(album.discCount == 1)
            #expect(album.duration == 61.5)
            #expect(tracks.count == 1 && tracks[0].previewURL == nil && tracks[0].trackTotal == 1)
        }
    }

    @Test func albumsOverThreeHundredTracksFollowTracksNext() async throws {
        try await withCatalog { server, client, _ in
            let (album, tracks) = try await client.album(id: FakeAppleMusicRoutes.longAlbumID)
            #expect(tracks.count == FakeAppleMusicRoutes.longAlbumTracks)
            #expect(tracks.last?.title == "Movement 305")
            #expect(album.discCount == 4 && album.duration == 305 * 60)
            let rest = try #require(await server.log.requests(to: "/v1/catalog/us/albums/\(FakeAppleMusicRoutes.longAlbumID)/tracks").first)
            #expect(rest.query["offset"] == "300" && rest.query["limit"] == "300")
        }
    }

    @Test func unknownAlbumIsNotFound() async throws {
        try await withCatalog { _, client, _ in
            let error = await catalogError { _ = try await client.album(id: "1400000007") }
            #expect(error == .notFound("album 1400000007"))
            #expect(error?.description == "not found on Apple Music: album 1400000007")
        }
    }

    @Test func batchLookupSplitsAtOneHundredKeepsOrderAndOmitsMissing() async throws {
        try await withCatalog { server, client, _ in
            // 230 ids, shuffled; every id divisible by 7 does not exist.
            var ids = (0..<230).map { String(1_400_000_000 + $0) }
            var generator = SplitMix64(seed: 42)
            ids.shuffle(using: &generator)
            let albums = try await client.albums(ids: ids)
            let expected = ids.filter { (Int($0) ?? 0) % 7 != 0 }
            #expect(albums.map(\.externalID) == expected)
            #expect(albums.count == expected.count && expected.count < 230)
            let requests = await server.log.requests(to: "/v1/catalog/us/albums")
            #expect(requests.map { $0.query["ids"]?.split(separator: ",").count } == [100, 100, 30])
            let sent: [String] = requests.flatMap { request -> [String] in
                (request.query["ids"] ?? "").split(separator: ",").map { String($0) }
            }
            #expect(sent == ids)
            // Batch items carry their tracks: the duration is known.
            #expect(albums.first?.duration == 360)
            #expect(try await client.albums(ids: []).isEmpty)
            #expect(try await client.albums(ids: ["1400000007"]).isEmpty)
        }
    }

    @Test func artistAlbumsPageByOneHundredAndRelatedByTen() async throws {
        try await withCatalog { server, client, _ in
            let discography = try await client.artistAlbums(artistID: "300000001", limit: 120)
            #expect(discography.count == 120)
            #expect(discography.last?.title == "Discography 120")
            let artistRequests = await server.log.requests(to: "/v1/catalog/us/artists/300000001/albums")
            #expect(artistRequests.map { $0.query["limit"] } == ["100", "20"])
            #expect(artistRequests.map { $0.query["offset"] } == [nil, "100"])

            let all = try await client.artistAlbums(artistID: "300000002", limit: 500)
            #expect(all.count == FakeAppleMusicRoutes.artistAlbumTotal)

            let related = try await client.relatedAlbums(albumID: "1500000001", limit: 12)
            #expect(related.map(\.title) == (1...12).map { "Related \($0)" })
            let viewRequests = await server.log.requests(to: "/v1/catalog/us/albums/1500000001/view/related-albums")
            #expect(viewRequests.map { $0.query["limit"] } == ["10", "2"])
        }
    }
}
