import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

extension AppSuites {
    /// The daemon's door (Docs/HTTP_API.md, "Security"), against a real crated over real HTTP: every rule with an
    /// allowed and a refused request, and after each refusal a look at the daemon's state to see nothing changed.
    @Suite struct SecurityTests {
        struct Answer {
            var status: Int
            var headers: [String: String]
            var body: String
            var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
            var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
            var errorMessage: String { (json["error"] as? [String: Any])?["message"] as? String ?? "" }
        }

        /// One request with curl (no Origin or Sec-Fetch headers unless given: a script's request).
        static func call(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil,
                         bodyFile: URL? = nil) throws -> Answer {
            let head = FileManager.default.temporaryDirectory.appendingPathComponent("crate-head-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: head) }
            var args = ["-s", "-o", "-", "-D", head.path, "-w", "\n%{http_code}", "-X", method, "http://127.0.0.1:\(port)\(path)"]
            for (k, v) in headers { args += ["-H", "\(k): \(v)"] }
            if let body { args += ["--data-binary", body] }
            if let bodyFile { args += ["--data-binary", "@\(bodyFile.path)"] }
            let out = try Fixture.run("curl", args)
            let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
            var fields: [String: String] = [:]
            for line in ((try? String(contentsOf: head, encoding: .utf8)) ?? "").split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return Answer(status: Int(lines.last ?? "") ?? 0, headers: fields, body: lines.dropLast().joined(separator: "\n"))
        }

        static let json = ["Content-Type": "application/json"]

        /// A daemon with the small test library imported (one FLAC album of three tracks, one MP3 album).
        static func daemonWithMusic(_ app: AppHarness, extra: [String: String] = [:]) throws -> (Daemon, URL) {
            let music = try app.makeMusic()
            let imported = try app.crate("import", "--mode", "reference", music.path)
            #expect(imported.status == 0, "\(imported.stderr)")
            return (try Daemon(app, extra: extra), music)
        }

        static func player(_ d: Daemon) throws -> (state: String, queue: Int) {
            let j = try call(d.port, "GET", "/api/v1/player").json
            return (j["state"] as? String ?? "?", j["queueLength"] as? Int ?? -1)
        }

        @Test func hostNamesOutsideTheListAreMisdirected() throws {
            let app = try AppHarness()
            let d = try Daemon(app, extra: ["CRATE_HTTP_ALLOWED_HOSTS": "music.home"])
            let rebound = try Self.call(d.port, "GET", "/api/v1/albums", headers: ["Host": "evil.example:\(d.port)"])
            #expect(rebound.status == 421 && rebound.errorCode == "unknown_host", "\(rebound)")
            #expect(rebound.errorMessage.contains("http.allowed_hosts"))
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Host": "localhost:\(d.port)"]).status == 200)
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Host": "[::1]:\(d.port)"]).status == 200)
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Host": "music.home"]).status == 200)
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Host": "music.home:8443"]).status == 200)
            // A loopback name on another port is another server's name.
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Host": "localhost:1"]).status == 421)
            #expect(d.text.contains("refused GET /api/v1/albums: Host evil.example"))
        }

        @Test func crossOriginStateChangesAreRefusedBeforeAnyWork() throws {
            let app = try AppHarness()
            let (d, music) = try Self.daemonWithMusic(app)
            let albums = try decodeJSON([Album].self, try Self.call(d.port, "GET", "/api/v1/albums").body)
            let album = try #require(albums.first)
            let evil = "http://evil.example"

            // The attacks from the issue: text/plain play, a JSON import that would delete originals, a DELETE.
            let play = try Self.call(d.port, "POST", "/api/v1/queue/play-album", headers: ["Origin": evil, "Content-Type": "text/plain"],
                                     body: #"{"albumID": \#(album.id)}"#)
            #expect(play.status == 403 && play.errorCode == "cross_origin", "\(play)")
            #expect(try Self.player(d) == ("stopped", 0))
            let importBody = #"{"paths": ["\#(music.path)"], "mode": "copy_then_delete", "deleteOriginals": true}"#
            let steal = try Self.call(d.port, "POST", "/api/v1/library/import", headers: ["Origin": evil].merging(Self.json) { $1 },
                                      body: importBody)
            #expect(steal.status == 403 && steal.errorCode == "cross_origin", "\(steal)")
            let status = try Self.call(d.port, "GET", "/api/v1/library/status").json
            #expect((status["job"] as? [String: Any])?["kind"] as? String != "import", "an import job started: \(status)")
            #expect(FileManager.default.fileExists(atPath: music.appendingPathComponent("Band/Record/01.flac").path))
            // Sec-Fetch-Site alone (a browser that sent no Origin) is enough to refuse.
            let fetchSite = try Self.call(d.port, "POST", "/api/v1/queue/play-album",
                                          headers: ["Sec-Fetch-Site": "cross-site"].merging(Self.json) { $1 }, body: #"{"albumID": \#(album.id)}"#)
            #expect(fetchSite.status == 403, "\(fetchSite)")
            #expect(try Self.player(d) == ("stopped", 0))

            // The daemon's own page, and scripts without Origin or Sec-Fetch-*, may.
            let own = try Self.call(d.port, "POST", "/api/v1/queue/play-album",
                                    headers: ["Origin": "http://127.0.0.1:\(d.port)", "Sec-Fetch-Site": "same-origin"].merging(Self.json) { $1 },
                                    body: #"{"albumID": \#(album.id)}"#)
            #expect(own.status == 200, "\(own)")
            #expect(try Self.player(d).queue == 3)
            let clear = try Self.call(d.port, "DELETE", "/api/v1/queue", headers: ["Origin": evil])
            #expect(clear.status == 403 && clear.errorCode == "cross_origin")
            #expect(try Self.player(d).queue == 3)
            #expect(try Self.call(d.port, "DELETE", "/api/v1/queue").status == 200)
            #expect(try Self.player(d).queue == 0)

            // No CORS headers for an origin nobody listed, on reads either.
            let read = try Self.call(d.port, "GET", "/api/v1/albums", headers: ["Origin": evil])
            #expect(read.status == 200 && read.headers.keys.allSatisfy { !$0.hasPrefix("access-control-") }, "\(read.headers)")
            let preflight = try Self.call(d.port, "OPTIONS", "/api/v1/queue",
                                          headers: ["Origin": evil, "Access-Control-Request-Method": "DELETE"])
            #expect(preflight.status == 403 && preflight.headers["access-control-allow-origin"] == nil)
            #expect(d.text.contains("refused POST /api/v1/queue/play-album: cross-origin, Origin http://evil.example (403)"))
        }

        @Test func stateChangingBodiesMustBeJSON() throws {
            let app = try AppHarness()
            let (d, _) = try Self.daemonWithMusic(app)
            let albums = try decodeJSON([Album].self, try Self.call(d.port, "GET", "/api/v1/albums").body)
            let id = try #require(albums.first?.id)
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let answer = try Self.call(d.port, "POST", "/api/v1/queue/play-album", headers: ["Content-Type": type],
                                           body: #"{"albumID": \#(id)}"#)
                #expect(answer.status == 415 && answer.errorCode == "unsupported_media_type", "\(type): \(answer)")
            }
            // A body with no type at all is refused too; an empty command body needs none.
            let untyped = try Self.call(d.port, "POST", "/api/v1/player/volume", headers: ["Content-Type": ""], body: #"{"value": 5}"#)
            #expect(untyped.status == 415, "\(untyped)")
            #expect(try Self.player(d) == ("stopped", 0))
            #expect(try Self.call(d.port, "POST", "/api/v1/player/stop").status == 200)
            let typed = try Self.call(d.port, "POST", "/api/v1/queue/play-album", headers: ["Content-Type": "application/json; charset=utf-8"],
                                      body: #"{"albumID": \#(id)}"#)
            #expect(typed.status == 200, "\(typed)")
        }

        @Test func listedCORSOriginsGetPreflightAndHeaders() throws {
            let app = try AppHarness()
            let d = try Daemon(app, extra: ["CRATE_HTTP_CORS_ORIGINS": "http://app.example:5173"])
            let preflight = try Self.call(d.port, "OPTIONS", "/api/v1/player/volume",
                                          headers: ["Origin": "http://app.example:5173", "Access-Control-Request-Method": "POST"])
            #expect(preflight.status == 204, "\(preflight)")
            #expect(preflight.headers["access-control-allow-origin"] == "http://app.example:5173")
            #expect(preflight.headers["access-control-allow-headers"]?.contains("Content-Type") == true)
            let volume = try Self.call(d.port, "POST", "/api/v1/player/volume",
                                       headers: ["Origin": "http://app.example:5173"].merging(Self.json) { $1 }, body: #"{"value": 40}"#)
            #expect(volume.status == 200 && volume.headers["access-control-allow-origin"] == "http://app.example:5173", "\(volume)")
            let other = try Self.call(d.port, "POST", "/api/v1/player/volume",
                                      headers: ["Origin": "http://app.example:9999"].merging(Self.json) { $1 }, body: #"{"value": 90}"#)
            #expect(other.status == 403)
            #expect((try Self.call(d.port, "GET", "/api/v1/player").json["modes"] as? [String: Any])?["volume"] as? Int == 40)
        }

        @Test func securityHeadersOnEveryAnswer() throws {
            let app = try AppHarness()
            let d = try Daemon(app)
            let health = try Self.call(d.port, "GET", "/api/v1/health")
            #expect(health.headers["x-content-type-options"] == "nosniff")
            #expect(health.headers["referrer-policy"] == "no-referrer")
            #expect(health.headers["cache-control"] == "no-store")
            let missing = try Self.call(d.port, "GET", "/api/v1/nothing")
            #expect(missing.status == 404 && missing.headers["x-content-type-options"] == "nosniff" && missing.headers["cache-control"] == "no-store")
            let page = try Self.call(d.port, "GET", "/login")
            #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
            let csp = page.headers["content-security-policy"] ?? ""
            #expect(csp.contains("default-src 'none'") && csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'")
                        && csp.contains("manifest-src 'self'"), "\(csp)")
            #expect(!page.body.contains("<script>") && page.body.contains("src=\"/login.js\""))
        }

        @Test func oversizedBodiesGet413AndTheDaemonKeepsServing() throws {
            let app = try AppHarness()
            let d = try Daemon(app)
            let big = app.home.appendingPathComponent("big.json")
            // 50 MB of JSON text: declared length first, then the same streamed without a length (chunked).
            try Data(repeating: UInt8(ascii: " "), count: 50 << 20).write(to: big)
            let declared = try Self.call(d.port, "POST", "/api/v1/player/volume", headers: Self.json, bodyFile: big)
            #expect(declared.status == 413 && declared.errorCode == "body_too_large", "\(declared)")
            #expect(declared.errorMessage.contains("http.max_body_bytes"))
            let chunked = try Self.call(d.port, "POST", "/api/v1/player/volume",
                                        headers: Self.json.merging(["Transfer-Encoding": "chunked"]) { $1 }, bodyFile: big)
            #expect(chunked.status == 413 && chunked.errorCode == "body_too_large", "\(chunked)")
            #expect(try Self.call(d.port, "POST", "/api/v1/player/volume", headers: Self.json, body: #"{"value": 30}"#).status == 200)
            #expect(!d.text.contains("NIOTooManyBytesError"))
            // A playlist-sized body (a few thousand ids) fits the default limit.
            let ids = (1...5000).map(String.init).joined(separator: ",")
            let list = try Self.call(d.port, "POST", "/api/v1/queue/play-list", headers: Self.json, body: #"{"trackIDs": [\#(ids)]}"#)
            #expect(list.status != 413, "\(list)")
        }

        @Test func eventClientsAreCappedWith503() throws {
            let app = try AppHarness()
            let d = try Daemon(app, extra: ["CRATE_HTTP_MAX_EVENT_CLIENTS": "2"])
            var streams: [ChildProcess] = []
            defer { streams.forEach { $0.stop(signal: SIGKILL) } }
            for n in 0..<2 {
                let out = app.home.appendingPathComponent("events-\(n).txt")
                streams.append(try ChildProcess(["curl", "-s", "-N", "http://127.0.0.1:\(d.port)/api/v1/events"], output: out))
                try waitUntil("event stream \(n) opened", seconds: 30) {
                    ((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains(": crated events")
                }
            }
            let third = try Self.call(d.port, "GET", "/api/v1/events")
            #expect(third.status == 503 && third.errorCode == "too_many_event_clients", "\(third)")
            #expect(third.errorMessage.contains("http.max_event_clients"))
            #expect(try Self.call(d.port, "GET", "/api/v1/health").status == 200)
        }

        @Test func slowAndIdleConnectionsAreClosed() throws {
            let app = try AppHarness()
            let d = try Daemon(app, extra: ["CRATE_HTTP_IDLE_TIMEOUT": "1"])
            // Half a request head, then nothing: the daemon closes the connection (read returns 0) on its own.
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(d.port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            var bound = timeval(tv_sec: 60, tv_usec: 0)   // a hang guard; the daemon's limit is 1 s
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
            let partial = "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:\(d.port)\r\n"
            _ = partial.withCString { send(fd, $0, strlen($0), 0) }
            var byte: UInt8 = 0
            let got = recv(fd, &byte, 1, 0)
            #expect(got == 0, "the daemon did not close a connection that sent half a request (recv \(got), errno \(errno))")
            #expect(try Self.call(d.port, "GET", "/api/v1/health").status == 200)
        }

        @Test func offLoopbackNeedsATokenThatNeverShowsInTheLog() throws {
            var app = try AppHarness()
            // No token: refused at start, naming the setting, exit 78 (EX_CONFIG), before any library work.
            let port = try Fixture.freePort()
            let bare = try app.crated(["CRATE_HTTP_ADDRESS": "0.0.0.0:\(port)"])
            #expect(bare.status == 78 && bare.stderr.contains("http.token"), "\(bare)")
            #expect(!FileManager.default.fileExists(atPath: app.home.appendingPathComponent("data/library.sqlite").path))

            let token = "t0k3n-\(UUID().uuidString)"
            let file = app.home.appendingPathComponent("token")
            try Data((token + "\n").utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            let open = try app.crated(["CRATE_HTTP_ADDRESS": "0.0.0.0:\(port)", "CRATE_HTTP_TOKEN_FILE": file.path])
            #expect(open.status == 78 && open.stderr.contains("chmod 600"), "\(open)")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

            app.environment["CRATE_HTTP_TOKEN_FILE"] = file.path   // crated and crate read the same setting
            let d = try Daemon(app, host: "0.0.0.0")
            let anonymous = try Self.call(d.port, "GET", "/api/v1/health")
            #expect(anonymous.status == 401 && anonymous.errorCode == "unauthorized" && anonymous.headers["www-authenticate"] != nil)
            let wrong = try Self.call(d.port, "GET", "/api/v1/health", headers: ["Authorization": "Bearer not-the-token-at-all"])
            #expect(wrong.status == 401)
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            // A home screen fetches the web app manifest and its icons without cookies: they alone are open; the page
            // and its code are not.
            let manifest = try Self.call(d.port, "GET", "/web/manifest.webmanifest")
            #expect(manifest.status == 200 && manifest.headers["content-type"] == "application/manifest+json", "\(manifest)")
            // (The PNG's bytes are no text for this helper to read a status after: its headers say it came.)
            let icon = try Self.call(d.port, "GET", "/web/icons/crate-192.png")
            #expect(icon.headers["content-type"] == "image/png" && icon.headers["etag"] != nil, "\(icon)")
            #expect(try Self.call(d.port, "GET", "/web/app.css").status == 401)
            #expect(try Self.call(d.port, "GET", "/").status == 401)
            // The CLI reads the token from the same config and drives the daemon.
            let status = try app.crate("status", env: d.env)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(try app.crate("volume", "55", env: d.env).status == 0)
            #expect(try app.crate("config").stdout.contains("(set)"))
            #expect(!(try app.crate("config", "--json").stdout.contains(token)))

            // The browser way: the login form turns the token into a cookie that is not the token.
            let own = "http://127.0.0.1:\(d.port)"
            let badLogin = try Self.call(d.port, "POST", "/api/v1/session", headers: ["Origin": own].merging(Self.json) { $1 },
                                         body: #"{"token": "wrong-wrong-wrong-wrong"}"#)
            #expect(badLogin.status == 401 && badLogin.headers["set-cookie"] == nil)
            let login = try Self.call(d.port, "POST", "/api/v1/session", headers: ["Origin": own].merging(Self.json) { $1 },
                                      body: #"{"token": "\#(token)"}"#)
            let cookie = try #require(login.headers["set-cookie"], "\(login)")
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains(token))
            let session = String(cookie.split(separator: ";")[0])
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Cookie": session]).status == 200)
            #expect(try Self.call(d.port, "GET", "/api/v1/health", headers: ["Cookie": "crate_session=forged"]).status == 401)
            // Even with the token, another site's page may not change state.
            let cross = try Self.call(d.port, "POST", "/api/v1/player/stop", headers: ["Origin": "http://evil.example", "Cookie": session])
            #expect(cross.status == 403)
            #expect(!d.text.contains(token), "the token appeared in the daemon's log")
            #expect(d.text.contains("a token is required"))
        }
    }
}

extension AppHarness {
    /// Runs crated expecting it to exit by itself (a start-up refusal); a hang guard stops it after 60 s.
    func crated(_ extra: [String: String]) throws -> Result {
        let out = home.appendingPathComponent("crated-start-\(UUID().uuidString).log")
        let process = try ChildProcess([AppHarness.binary("crated").path], environment: environment, extra: extra, output: out)
        let status = process.waitForExit(seconds: 60)
        if status == nil { process.stop(signal: SIGKILL) }
        let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        return Result(status: status ?? -1, stdout: text, stderr: text)
    }
}
