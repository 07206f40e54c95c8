@testable import AppleCatalogREST
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

@Suite(.promptly) struct PersonalTests {
    @Test func storefrontComesFromTheAccountWhenAUserTokenIsSet() async throws {
        var options = FakeAppleMusic.Options()
        options.meStorefront = "gb"
        try await withCatalog(options) { server, client, _ in
            let storefront = try await client.storefront()
            #expect(storefront == "gb")
            _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 1)
            #expect(await server.log.requests(to: "/v1/catalog/gb/charts").count == 1)
            #expect(await server.log.requests(to: "/v1/me/storefront").count == 1)   // asked once
            let me = try #require(await server.log.requests(to: "/v1/me/storefront").first)
            #expect(me.userToken == FakeAppleMusic.goodUserToken)
        }
    }

    @Test func concurrentFirstCallsShareOneStorefrontLookup() async throws {
        var options = FakeAppleMusic.Options()
        options.meStorefront = "jp"
        try await withCatalog(options) { server, client, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<5 {
                    group.addTask { _ = try await client.chartAlbums(genreID: String(20 + i), offset: 0, limit: 1) }
                }
                try await group.waitForAll()
            }
            #expect(await server.log.requests(to: "/v1/me/storefront").count == 1)
            #expect(await server.log.count(pathPrefix: "/v1/catalog/jp/charts") == 5)
        }
    }

    @Test func withoutUserTokenTheConfiguredStorefrontIsUsedAndPersonalCallsSaySo() async throws {
        try await withCatalog(configure: { $0.userToken = nil; $0.storefront = "DE" }) { server, client, _ in
            let storefront = try await client.storefront()
            #expect(storefront == "de")
            #expect(await server.log.requests(to: "/v1/me/storefront").isEmpty)
            let error = await catalogError { _ = try await client.libraryAlbums(limit: 10) }
            #expect(error == .userTokenMissing)
            #expect(await server.log.count(pathPrefix: "/v1/me") == 0)   // nothing sent
        }
    }

    @Test func userTokenIsReadFromAFileTrimmed() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        let file = keys.directory.appendingPathComponent("user-token").path
        try TestKeys.write(FakeAppleMusic.goodUserToken + "\n", to: file, mode: 0o600)
        var config = keys.config(server, userToken: nil)
        config.userTokenFile = file
        let client = try AppleCatalogClient(config: config)
        let albums = try await client.recentlyPlayedAlbums(limit: 2)
        #expect(albums.count == 2)
        #expect(await server.log.requests(to: "/v1/me/recent/played").first?.userToken == FakeAppleMusic.goodUserToken)
        await server.stop()
    }

    @Test func recentlyPlayedAndHeavyRotationKeepAlbumsOnlyInPagesOfTen() async throws {
        try await withCatalog { server, client, _ in
            let recent = try await client.recentlyPlayedAlbums(limit: 6)
            #expect(recent.map(\.title) == ["Played 0", "Played 3", "Played 6", "Played 9", "Played 12", "Played 15"])
            let requests = await server.log.requests(to: "/v1/me/recent/played")
            #expect(requests.map { $0.query["limit"] } == ["10", "10"])
            #expect(requests.map { $0.query["offset"] } == [nil, "10"])
            #expect(requests.allSatisfy { $0.userToken == FakeAppleMusic.goodUserToken })

            let all = try await client.recentlyPlayedAlbums(limit: 100)
            #expect(all.count == 9)   // 25 items, every third an album

            let rotation = try await client.heavyRotationAlbums(limit: 50)
            #expect(rotation.map(\.title) == ["Rotation 0", "Rotation 2", "Rotation 4", "Rotation 6", "Rotation 8", "Rotation 10"])
            #expect(await server.log.requests(to: "/v1/me/history/heavy-rotation").allSatisfy { $0.query["limit"] == "10" })
        }
    }

    @Test func recommendationsGiveTheirAlbumContentsLookingUpBareIdentifiers() async throws {
        try await withCatalog { server, client, _ in
            let albums = try await client.recommendedAlbums(limit: 10)
            #expect(albums.map(\.externalID) == ["1920000001", "1920000002", "1920000003"])
            #expect(albums[1].title == "Album 1920000002")   // fetched by id: the recommendation held only its id
            #expect(await server.log.requests(to: "/v1/catalog/us/albums").first?.query["ids"] == "1920000002")
        }
    }

    @Test func libraryPagePastTheEndIs404AndEndsTheList() async throws {
        try await withCatalog { server, client, _ in
            let albums = try await client.libraryAlbums(limit: 50)
            #expect(albums.count == 7)
            let requests = await server.log.requests(to: "/v1/me/library/albums")
            #expect(requests.map { $0.query["offset"] } == [nil, "7"])
            #expect(await server.log.statuses.suffix(1) == [404])
            let first = try #require(albums.first)
            #expect(first.externalID == "l.AbC0" && first.id == 0 && first.identity == "applemusic:l.AbC0")
            #expect(first.addedAt == Date(timeIntervalSince1970: 1_659_752_290))   // 2022-08-06T02:18:10Z
            #expect(first.artworkURL?.contains("600x600") == true)
        }
    }

    @Test func emptyLibraryAnswers404AtOffsetZero() async throws {
        var options = FakeAppleMusic.Options()
        options.libraryCount = 0
        try await withCatalog(options) { _, client, _ in
            let albums = try await client.libraryAlbums(limit: 10)
            #expect(albums.isEmpty)
        }
    }

    @Test func libraryPagesByOneHundred() async throws {
        var options = FakeAppleMusic.Options()
        options.libraryCount = 230
        try await withCatalog(options) { server, client, _ in
            let albums = try await client.libraryAlbums(limit: 150)
            #expect(albums.count == 150)
            #expect(await server.log.requests(to: "/v1/me/library/albums").map { $0.query["limit"] } == ["100", "50"])
        }
    }
}
