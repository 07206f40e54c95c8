@testable import AppleCatalogREST
import Foundation
import Testing
import CrateDomain
import CrateTestSupport

@Suite(.promptly) struct ResilienceTests {
    /// Answers `path` with `reply` the first `times` times it is asked, then lets the catalog answer.
    static func failing(_ path: String, times: Int, with reply: FakeAppleMusic.Reply, state: @escaping @Sendable () -> FakeState?)
        -> @Sendable (FakeAppleMusic.Seen) async -> FakeAppleMusic.Reply? {
        { seen in
            guard seen.path == path, let state = state() else { return nil }
            return await state.next(path) < times ? reply : nil
        }
    }

    @Test func a429WithoutRetryAfterIsRetriedWithBackoff() async throws {
        let state = FakeState()
        var options = FakeAppleMusic.Options()
        options.override = Self.failing("/v1/catalog/us/charts", times: 1, with: .status(429), state: { state })
        try await withCatalog(options) { server, client, _ in
            let page = try await client.chartAlbums(genreID: nil, offset: 0, limit: 5)
            #expect(page.items.count == 5)
            #expect(await server.log.requests(to: "/v1/catalog/us/charts").count == 2)
            #expect(await server.log.statuses.suffix(2) == [429, 200])
        }
    }

    @Test func a429WithRetryAfterWaitsThatLong() async throws {
        let state = FakeState()
        var options = FakeAppleMusic.Options()
        options.override = Self.failing("/v1/catalog/us/charts", times: 1,
                                        with: FakeAppleMusic.Reply(status: 429, headers: ["Retry-After": "1"]), state: { state })
        try await withCatalog(options) { server, client, _ in
            _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 5)
            let requests = await server.log.requests(to: "/v1/catalog/us/charts")
            #expect(requests.count == 2)
            if requests.count == 2 {
                // Honoured: the retry came no sooner than the server asked (backoff alone would be ~50 ms).
                #expect(requests[1].at - requests[0].at >= .milliseconds(950))
            }
        }
    }

    @Test func persistent429GivesRateLimitedAfterTheRetries() async throws {
        var options = FakeAppleMusic.Options()
        options.override = { seen in seen.path.hasSuffix("/charts") ? .status(429) : nil }
        try await withCatalog(options, configure: { $0.maxRetries = 2 }) { server, client, _ in
            let error = await catalogError { _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 5) }
            #expect(error == .rateLimited(retries: 2))
            #expect(error?.description.contains("HTTP 429") == true)
            #expect(await server.log.requests(to: "/v1/catalog/us/charts").count == 3)
        }
    }

    @Test func a5xxThenSuccessAndPersistent5xx() async throws {
        let state = FakeState()
        var options = FakeAppleMusic.Options()
        let flaky = Self.failing("/v1/catalog/us/albums/1500000001", times: 2,
                                 with: .error(503, code: "50300", title: "Service Unavailable"), state: { state })
        options.override = { seen in
            if seen.path == "/v1/catalog/us/albums/1500000002" { return .status(500) }
            return await flaky(seen)
        }
        try await withCatalog(options) { server, client, _ in
            let album = try await client.album(id: "1500000001").album
            #expect(album.title == "Kind of Invented")
            #expect(await server.log.requests(to: "/v1/catalog/us/albums/1500000001").count == 3)

            let error = await catalogError { _ = try await client.album(id: "1500000002") }
            #expect(error == .server(status: 500))
            #expect(await server.log.requests(to: "/v1/catalog/us/albums/1500000002").count == 4)   // 1 + 3 retries
        }
    }

    @Test func a401WithEmptyBodyMeansTheDeveloperTokenWasRejected() async throws {
        var options = FakeAppleMusic.Options()
        options.keyID = "OTHERKEY99"   // the server expects another key: every token is refused
        try await withCatalog(options, configure: { $0.userToken = nil }) { server, client, _ in
            let error = await catalogError { _ = try await client.genres() }
            #expect(error == .developerTokenRejected)
            #expect(error?.description.hasPrefix("Apple Music refused the developer token (401)") == true)
            #expect(await server.log.statuses == [401])   // not retried
            #expect(await server.log.seen.first?.jwtProblem == "wrong kid")
        }
    }

    @Test func a403OnPersonalCallsMeansTheUserTokenWasRejected() async throws {
        try await withCatalog(configure: { $0.userToken = "a-stale-user-token" }) { server, client, _ in
            let error = await catalogError { _ = try await client.libraryAlbums(limit: 10) }
            #expect(error == .userTokenRejected)
            #expect(error?.description.contains("403") == true)
            // Catalog browsing goes on with the configured storefront.
            let page = try await client.chartAlbums(genreID: nil, offset: 0, limit: 2)
            #expect(page.items.count == 2)
            #expect(await server.log.requests(to: "/v1/catalog/us/charts").count == 1)
        }
    }

    @Test func malformedJSONIsAClearErrorNotACrash() async throws {
        var options = FakeAppleMusic.Options()
        options.override = { seen in
            switch seen.path {
            case "/v1/catalog/us/genres": .json(#"{"data":[{"id":"34","type":"genres","attributes":{"name":"Mu"#)
            case "/v1/catalog/us/charts": .json(#"{"results":5}"#)
            case "/v1/catalog/us/search": .json("")
            case "/v1/catalog/us/albums/1500000001": .json("<html>Service Temporarily Unavailable</html>")
            case "/v1/catalog/us/albums":
                // Odd items are skipped, odd fields read as absent: the rest still maps.
                .json(#"{"data":[42,{"type":"albums"},{"id":1500000004,"type":"albums","attributes":{"name":"Numeric Id","artistName":7,"trackCount":"9","genreNames":["Rock",3,"Music"],"artwork":{"url":null}}},{"id":"1500000005","type":"albums","attributes":{"name":"Fine","artistName":"Someone","unknown":{"deep":[1,2]}}}]}"#)
            default: nil
            }
        }
        try await withCatalog(options) { _, client, _ in
            let genres = await catalogError { _ = try await client.genres() }
            #expect(genres == .badResponse(endpoint: "/v1/catalog/us/genres", reason: "not valid JSON"))
            #expect(genres?.description == "unexpected answer from Apple Music (/v1/catalog/us/genres): not valid JSON")
            let charts = await catalogError { _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 5) }
            #expect(charts == .badResponse(endpoint: "/v1/catalog/us/charts", reason: "unexpected value at results"))
            let search = await catalogError { _ = try await client.search(term: "x", limit: 5) }
            #expect(search == .badResponse(endpoint: "/v1/catalog/us/search", reason: "empty body"))
            let html = await catalogError { _ = try await client.album(id: "1500000001") }
            #expect(html == .badResponse(endpoint: "/v1/catalog/us/albums/1500000001", reason: "not valid JSON"))
            #expect(html?.description.contains("html") == false)   // never the raw body

            let albums = try await client.albums(ids: ["1500000004", "1500000005"])
            #expect(albums.map(\.title) == ["Numeric Id", "Fine"])
            #expect(albums[0].trackCount == 9 && albums[0].artist == "" && albums[0].genres == ["Rock"] && albums[0].artworkURL == nil)
        }
    }

    @Test func aLimitOverTheMaximumGivesApplesReasonShortened() async throws {
        var options = FakeAppleMusic.Options()
        options.override = { seen in
            seen.path.hasSuffix("/charts")
                ? .error(400, code: "40005", title: "Invalid Parameter Value",
                         detail: "Value must be an integer less than or equal to 50, but was: 51", parameter: "limit")
                : nil
        }
        try await withCatalog(options) { _, client, _ in
            let error = await catalogError { _ = try await client.chartAlbums(genreID: nil, offset: 0, limit: 5) }
            #expect(error == .invalidRequest("Value must be an integer less than or equal to 50, but was: 51 (parameter limit)"))
        }
    }

    /// A token pasted with a line break inside would make a header of its own: refused before anything is sent.
    @Test func aTokenWithALineBreakIsRefusedNotSent() async throws {
        try await withCatalog(configure: { $0.userToken = "user-token\r\nX-Injected: yes" }) { server, client, _ in
            let error = await catalogError { _ = try await client.libraryAlbums(limit: 5) }
            #expect(error == .transport("a request header has a line break in its value (check the tokens in the settings)"))
            #expect(await server.log.seen.isEmpty)
        }
    }

    @Test func cancellingAnInFlightRequestThrowsCancelledAtOnce() async throws {
        var options = FakeAppleMusic.Options()
        let gate = ReplyGate()
        options.override = { seen in
            guard seen.query["term"] == "slow" else { return nil }
            await gate.wait()
            return nil
        }
        try await withCatalog(options, configure: { $0.userToken = nil }) { server, client, _ in
            defer { Task { await gate.open() } }
            let task = Task { try await client.searchAlbums(term: "slow", offset: 0, limit: 5) }
            try await server.log.waitFor(1)
            task.cancel()
            let result = await task.result
            // The server has not answered yet: the client gave up without waiting for it.
            #expect(await server.log.answeredCount == 0)
            #expect(throws: AppleCatalogError.cancelled) { try result.get() }
            #expect(await server.log.seen.count == 1)   // no retry
        }
    }

    @Test func cancellingDuringBackoffThrowsCancelled() async throws {
        var options = FakeAppleMusic.Options()
        options.override = { _ in FakeAppleMusic.Reply(status: 429, headers: ["Retry-After": "20"]) }
        try await withCatalog(options, configure: { $0.userToken = nil }) { server, client, _ in
            let task = Task { try await client.genres() }
            try await server.log.waitFor(1)
            try await waitUntilAsync("the 429 answer", seconds: 30) { await server.log.answeredCount >= 1 }
            task.cancel()
            await #expect(throws: AppleCatalogError.cancelled) { try await task.value }
            #expect(await server.log.seen.count == 1)
        }
    }

    @Test func aSlowServerTimesOut() async throws {
        var options = FakeAppleMusic.Options()
        let gate = ReplyGate()
        options.override = { seen in
            guard seen.path.hasSuffix("/genres") else { return nil }
            await gate.wait()   // never answers while the test runs
            return nil
        }
        try await withCatalog(options, configure: { $0.timeoutSeconds = 0.5; $0.userToken = nil }) { _, client, _ in
            defer { Task { await gate.open() } }
            let error = await catalogError { _ = try await client.genres() }
            #expect(error == .transport("no answer within 0.5 s"))
        }
    }

    @Test func catalogAnswersAreCachedPersonalOnesAndWritesAreNot() async throws {
        try await withCatalog { server, client, _ in
            _ = try await client.genres()
            _ = try await client.genres()
            #expect(await server.log.requests(to: "/v1/catalog/us/genres").count == 2)   // two pages, once
            _ = try await client.chartAlbums(genreID: "20", offset: 0, limit: 10)
            _ = try await client.chartAlbums(genreID: "20", offset: 0, limit: 10)
            #expect(await server.log.requests(to: "/v1/catalog/us/charts").count == 1)
            _ = try await client.chartAlbums(genreID: "20", offset: 0, limit: 11)   // another request: sent
            #expect(await server.log.requests(to: "/v1/catalog/us/charts").count == 2)
            _ = try await client.album(id: "1500000001")
            _ = try await client.album(id: "1500000001")
            #expect(await server.log.requests(to: "/v1/catalog/us/albums/1500000001").count == 1)
            _ = try await client.search(term: "cached", limit: 5)
            _ = try await client.search(term: "cached", limit: 5)
            #expect(await server.log.requests(to: "/v1/catalog/us/search").count == 1)
            _ = try await client.heavyRotationAlbums(limit: 2)
            _ = try await client.heavyRotationAlbums(limit: 2)
            #expect(await server.log.requests(to: "/v1/me/history/heavy-rotation").count == 2)

            await client.clearCache()
            _ = try await client.album(id: "1500000001")
            #expect(await server.log.requests(to: "/v1/catalog/us/albums/1500000001").count == 2)
        }
    }

    @Test func theCacheCanBeTurnedOff() async throws {
        try await withCatalog(configure: { $0.cacheLifetime = 0 }) { server, client, _ in
            _ = try await client.album(id: "1500000001")
            _ = try await client.album(id: "1500000001")
            #expect(await server.log.requests(to: "/v1/catalog/us/albums/1500000001").count == 2)
        }
    }

    @Test func theRateLimiterNeverExceedsItsRate() async throws {
        let rate = 4.0
        try await withCatalog(configure: { $0.requestsPerSecond = rate; $0.userToken = nil }) { server, client, _ in
            // 16 different requests at once (different terms: no cache hits).
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<16 {
                    group.addTask { _ = try await client.search(term: "burst \(i)", limit: 1) }
                }
                try await group.waitForAll()
            }
            // Four a second: the fourth second's four cannot leave before three seconds have passed.
            #expect(ContinuousClock.now - started >= .seconds(3))
            // Every request arrived. How they spread within each second is checked against an injected clock in
            // CatalogURLTests: arrival times here would include this process's scheduling delay (no wall-clock windows).
            #expect(await server.log.seen.count == 16)
        }
    }
}
