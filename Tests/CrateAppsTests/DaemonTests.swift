import CrateDomain
import CrateTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AppSuites {
    @Suite struct DaemonTests {
        /// A port the kernel says is free right now.
        static func freePort() throws -> Int { try Fixture.freePort() }

        func get(_ url: URL) async throws -> (Int, Data) {
            let (data, response) = try await URLSession.shared.data(from: url)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        }

        @Test func servesHealthAndAlbumsAndStopsOnSIGTERM() async throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let port = try Self.freePort()
            let daemon = Process()
            daemon.executableURL = AppHarness.binary("crated")
            daemon.environment = app.environment.merging(["CRATE_HTTP_ADDRESS": "127.0.0.1:\(port)"]) { $1 }
            let log = app.home.appendingPathComponent("crated.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let logHandle = try FileHandle(forWritingTo: log)
            daemon.standardError = logHandle
            daemon.standardOutput = logHandle
            try daemon.run()
            defer { if daemon.isRunning { daemon.terminate() } }

            let base = URL(string: "http://127.0.0.1:\(port)/api/v1/")!
            var health: Data?
            for _ in 0..<100 where health == nil {
                health = try? await get(base.appendingPathComponent("health")).1
                if health == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let body = try #require(health, "crated did not answer: \(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self))")
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["status"] as? String == "ok")
            #expect((json["library"] as? [String: Any])?["albums"] as? Int == 2)

            let (status, albumsData) = try await get(base.appendingPathComponent("albums"))
            #expect(status == 200)
            let albums = try decodeJSON([Album].self, String(decoding: albumsData, as: UTF8.self))
            #expect(albums.map(\.title) == ["Record", "Tape"])

            let (tracksStatus, tracksData) = try await get(base.appendingPathComponent("albums/\(albums[0].id)/tracks"))
            #expect(tracksStatus == 200)
            #expect(try decodeJSON([Track].self, String(decoding: tracksData, as: UTF8.self)).count == 3)

            let (missing, errorData) = try await get(base.appendingPathComponent("albums/999999"))
            #expect(missing == 404)
            let error = try JSONSerialization.jsonObject(with: errorData) as? [String: [String: String]]
            #expect(error?["error"]?["code"] == "not_found")

            let (noRoute, _) = try await get(base.appendingPathComponent("nothing-here"))
            #expect(noRoute == 404)

            daemon.terminate()   // SIGTERM
            for _ in 0..<100 where daemon.isRunning { try await Task.sleep(for: .milliseconds(50)) }
            #expect(!daemon.isRunning)
            #expect(daemon.terminationStatus == 0)
            let text = String(decoding: try Data(contentsOf: log), as: UTF8.self)
            #expect(text.contains("plugin output pulse: unavailable"))
            #expect(text.contains("plugin decoder flac: registered"))
            #expect(text.contains("crated stopped"))
        }

        @Test func invalidConfigStopsStartUpWithTheKey() throws {
            let app = try AppHarness()
            let daemon = Process()
            daemon.executableURL = AppHarness.binary("crated")
            daemon.environment = app.environment.merging(["CRATE_HTTP_ADDRESS": "nowhere"]) { $1 }
            let err = Pipe()
            daemon.standardError = err
            daemon.standardOutput = FileHandle.nullDevice
            try daemon.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            daemon.waitUntilExit()
            #expect(daemon.terminationStatus != 0)
            #expect(text.contains("http.address"))
        }
    }
}
