@testable import AppleCatalogREST
import CrateDomain
import Foundation
import Testing

/// Paths, queries and `next` links: the wire form the fake server (and Apple) sees.
@Suite struct CatalogURLTests {
    @Test func targetsArePercentEncodedPredictably() {
        #expect(CatalogURL.target(["catalog", "us", "search"], [("term", "miles davis+c++"), ("types", "albums,songs")])
            == "/v1/catalog/us/search?term=miles+davis%2Bc%2B%2B&types=albums,songs")
        #expect(CatalogURL.target(["me", "library"], [("ids[albums]", "1,2")]) == "/v1/me/library?ids%5Balbums%5D=1,2")
        #expect(CatalogURL.target(["catalog", "us", "albums", "a/b?c"]) == "/v1/catalog/us/albums/a%2Fb%3Fc")
    }

    @Test func nextLinksGetOurLimitAndStayOnOurHost() throws {
        #expect(CatalogURL.setting("limit", to: "20", in: "/v1/catalog/us/charts?types=albums&chart=most-played&offset=50")
            == "/v1/catalog/us/charts?types=albums&chart=most-played&offset=50&limit=20")
        #expect(CatalogURL.setting("limit", to: "5", in: "/v1/catalog/us/charts?chart=most-played&limit=50&offset=50")
            == "/v1/catalog/us/charts?chart=most-played&offset=50&limit=5")
        #expect(CatalogURL.setting("limit", to: "5", in: "/v1/me/library/albums") == "/v1/me/library/albums?limit=5")
        // An absolute link keeps only its path and query: the token never goes to another host.
        #expect(CatalogURL.rootRelative("https://elsewhere.example/v1/catalog/us/search?offset=5&term=a+b&types=albums")
            == "/v1/catalog/us/search?offset=5&term=a+b&types=albums")
        #expect(CatalogURL.rootRelative("/v1/me/recent/played?offset=10") == "/v1/me/recent/played?offset=10")
        #expect(CatalogURL.rootRelative("relative/path") == nil)
        let request = CatalogRequest.get(["catalog", "us", "search"], [("term", "x")], label: "search")
        let next = try #require(request.following("/v1/catalog/us/search?offset=25&term=x&types=albums", limit: 25))
        #expect(next.target == "/v1/catalog/us/search?offset=25&term=x&types=albums&limit=25")
        #expect(next.label == "search" && next.cacheable)
        #expect(CatalogPage<Int>(items: [], next: next.target).nextOffset == 25)
    }

    @Test func theBaseURLNeverDoublesV1OrSlashes() throws {
        #expect(CatalogURL.root(of: try #require(URL(string: "https://api.music.apple.com"))) == "https://api.music.apple.com")
        #expect(CatalogURL.root(of: try #require(URL(string: "https://api.music.apple.com/v1/"))) == "https://api.music.apple.com")
        #expect(CatalogURL.root(of: try #require(URL(string: "http://127.0.0.1:8080/proxy/"))) == "http://127.0.0.1:8080/proxy")
    }

    @Test func personalAndCacheableRequests() {
        #expect(CatalogRequest.get(["me", "storefront"]).isPersonal)
        #expect(!CatalogRequest.get(["me", "storefront"]).cacheable)
        #expect(CatalogRequest.get(["catalog", "us", "charts"]).cacheable)
        #expect(!CatalogRequest(method: "POST", target: "/v1/catalog/us/x").cacheable)
        #expect(!CatalogRequest.get(["storefronts", "us"]).isPersonal)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryPolicy.retryAfterSeconds("1") == 1)
        #expect(RetryPolicy.retryAfterSeconds(nil) == nil)
        #expect(RetryPolicy.retryAfterSeconds("Fri, 15 Jan 2027 08:00:03 GMT", now: now) == 3)
        let policy = RetryPolicy(maxRetries: 3, baseDelay: 0.5)
        #expect(policy.delay(afterAttempt: 0, retryAfter: 2) == 2)
        #expect(policy.delay(afterAttempt: 0, retryAfter: 3600) == nil)   // too long: give up now
        let backoff = policy.delay(afterAttempt: 2, retryAfter: nil) ?? 0
        #expect(backoff >= 2 && backoff <= 2.5)   // 0.5 · 2², plus up to 25 % jitter
    }

    @Test func theWindowLetsTheRatesWorthThroughAtOnceAndNoMore() {
        let start = ContinuousClock.now
        var window = RequestWindow(rate: 4, margin: 0)
        for _ in 0..<4 { #expect(window.take(now: start) == nil) }        // a burst of four leaves together
        #expect(window.take(now: start) == .seconds(1))                   // the fifth waits for the first to age out
        #expect(window.take(now: start + .milliseconds(400)) == .milliseconds(600))
        for _ in 0..<4 { #expect(window.take(now: start + .seconds(1)) == nil) }   // the next second's four
        #expect(window.take(now: start + .seconds(1)) == .seconds(1))
        window.pause(until: start + .seconds(3))
        #expect(window.take(now: start + .seconds(2)) == .seconds(1))
        var slow = RequestWindow(rate: 0.5, margin: 0)                             // one request per two seconds
        #expect(slow.take(now: start) == nil && slow.take(now: start) == .seconds(2))
        var padded = RequestWindow(rate: 20)                              // the client's: a tenth longer
        for _ in 0..<20 { #expect(padded.take(now: start) == nil) }
        let wait = padded.take(now: start) ?? .zero
        #expect(wait > .milliseconds(1099) && wait < .milliseconds(1101))
        var unlimited = RequestWindow(rate: 0)
        for _ in 0..<1000 { #expect(unlimited.take() == nil) }
    }
}
