@testable import AppleCatalogREST
import Foundation
import Testing
import CrateDomain
import CrateTestSupport

@Suite(.promptly) struct WriteTests {
    @Test func addToLibraryAndFavoritesPostIdsAndTake202WithoutBody() async throws {
        try await withCatalog { server, client, _ in
            try await client.addToLibrary(albumIDs: ["1500000001", "1500000002"])
            try await client.addToFavorites(albumIDs: ["1500000001"])
            try await client.addToLibrary(albumIDs: ["1500000001", "1500000002"])   // writes are never cached
            let library = await server.log.requests(to: "/v1/me/library")
            #expect(library.count == 2)
            #expect(library.allSatisfy { $0.method == "POST" && $0.query["ids[albums]"] == "1500000001,1500000002" && $0.body.isEmpty })
            #expect(library.first?.rawQuery == "ids%5Balbums%5D=1500000001,1500000002")
            let favorites = try #require(await server.log.requests(to: "/v1/me/favorites").first)
            #expect(favorites.method == "POST" && favorites.query["ids[albums]"] == "1500000001")
            #expect(favorites.userToken == FakeAppleMusic.goodUserToken)
            #expect(await server.log.statuses == [202, 202, 202])
        }
    }

    @Test func ratingsArePutAndDeleted() async throws {
        try await withCatalog { server, client, _ in
            try await client.rate(albumID: "1500000001", .love)
            try await client.rate(albumID: "1500000002", .dislike)
            #expect(await server.state.ratings == ["1500000001": 1, "1500000002": -1])
            let put = try #require(await server.log.requests(to: "/v1/me/ratings/albums/1500000001").first)
            #expect(put.method == "PUT")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(put.body.utf8)) as? [String: Any])
            #expect(body["type"] as? String == "rating")
            #expect((body["attributes"] as? [String: Any])?["value"] as? Int == 1)

            try await client.deleteRating(albumID: "1500000001")          // 204, no body
            try await client.deleteRating(albumID: "1500000001")          // never set now: 404 counts as done
            let deletes = await server.log.requests(to: "/v1/me/ratings/albums/1500000001").filter { $0.method == "DELETE" }
            #expect(deletes.count == 2)
            #expect(await server.log.statuses == [200, 200, 204, 404])
            #expect(await server.state.ratings == ["1500000002": -1])
        }
    }

    @Test func writesNeedTheUserToken() async throws {
        try await withCatalog(configure: { $0.userToken = nil }) { server, client, _ in
            #expect(await catalogError { try await client.addToLibrary(albumIDs: ["1"]) } == .userTokenMissing)
            #expect(await catalogError { try await client.rate(albumID: "1", .love) } == .userTokenMissing)
            #expect(await server.log.seen.isEmpty)
        }
    }
}
