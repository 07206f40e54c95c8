import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// The web page's files as crated serves them: the app at `/`, its files under `/web/`, strong ETags (a
    /// repeat visit is a bodiless 304), gzip for browsers that take it, and nothing outside the folder.
    @Suite struct WebPageTests {
        typealias Call = SecurityTests

        @Test func thePageAndItsFilesAreServedWithETagsAndGzip() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app)
            let page = try Call.call(daemon.port, "GET", "/")
            #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8", "\(page.status)")
            #expect(page.body.contains("<script type=\"module\" src=\"/web/js/main.js\"></script>"))
            #expect(page.headers["cache-control"] == "no-cache" && page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            let etag = try #require(page.headers["etag"])
            #expect(etag.hasPrefix("\"") && etag.count > 10)
            let again = try Call.call(daemon.port, "GET", "/", headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.body.isEmpty)

            // The gzip body is binary: only its head is read here (curl keeps the body to itself).
            let head = try Fixture.run("curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip",
                                                "http://127.0.0.1:\(daemon.port)/web/js/main.js"]).lowercased()
            #expect(head.contains("content-encoding: gzip") && head.contains("content-type: text/javascript; charset=utf-8")
                    && head.contains("vary: accept-encoding"), "\(head)")
            let plain = try Call.call(daemon.port, "GET", "/web/js/main.js")
            #expect(plain.headers["content-encoding"] == nil && plain.body.contains("import { get, listen, say, send }"))
            // Every module the page imports is there.
            for module in ["api", "dom", "wall", "detail", "footer", "search", "views", "library"] {
                #expect(try Call.call(daemon.port, "GET", "/web/js/\(module).js").status == 200, "\(module).js")
            }
            for path in ["/web/nothing.js", "/web/%2e%2e/Package.swift", "/web/js/../../Package.swift"] {
                let missing = try Call.call(daemon.port, "GET", path)
                #expect(missing.status == 404 && !missing.body.contains("swift-tools-version"), "\(path): \(missing.status)")
            }
        }
    }
}
