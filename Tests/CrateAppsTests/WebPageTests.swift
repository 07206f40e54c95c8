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

        /// Issue 30: the page's first screen is in `/`, and its covers at the page's size (artwork.thumbnail_size, 200
        /// here) are made when crated starts (after an import none are), so a first visit does not wait for them to be
        /// decoded all at once.
        @Test func theWallsCoversAreInThePageAndMadeAtStartUp() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            for (folder, colour) in [("Band/Record", "red"), ("Other/Tape", "blue")] {
                _ = try PictureFixture.image(in: music.appendingPathComponent(folder), color: colour, size: "600x600", name: "cover.jpg")
            }
            let imported = try app.crate("import", "--mode", "reference", music.path)
            #expect(imported.status == 0, "\(imported.stderr)")
            let thumbs = app.home.appendingPathComponent("data/artwork/thumbs/200")
            #expect(!FileManager.default.fileExists(atPath: thumbs.path), "the import made thumbnails")
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null", "CRATE_ARTWORK_THUMBNAIL_SIZE": "200"])
            defer { daemon.stop() }
            var made: [String] = []
            try waitUntil("the wall's two covers made at 200 pixels (\(made))", seconds: 30) {
                made = (try? FileManager.default.contentsOfDirectory(atPath: thumbs.path)) ?? []
                return made.filter { $0.hasSuffix(".jpg") }.count == 2
            }
            let page = try Call.call(daemon.port, "GET", "/")
            let tiles = page.body.components(separatedBy: "<li class=\"tile\"").count - 1
            #expect(tiles == 2 && page.body.contains("id=\"wall-first\"") && page.body.contains("data-artwork=\"200\""),
                    "\(page.body.prefix(3000))")
            for file in made {
                #expect(page.body.contains("/api/v1/artwork/\(file.dropLast(4))?size=200"), "\(file) is not on the page")
            }
            // Same wall, same page: its ETag holds.
            let again = try Call.call(daemon.port, "GET", "/", headers: ["If-None-Match": try #require(page.headers["etag"])])
            #expect(again.status == 304)
        }
    }
}
