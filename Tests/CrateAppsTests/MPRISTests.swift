import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

extension AppSuites {
    /// Issue 18: the MPRIS front end on a private session bus (Debian's dbus-daemon), driven by Debian's playerctl and
    /// looked at with busctl.
    @Suite struct MPRISTests {
        /// A private session bus for one test: its address, and its daemon stopped at the end.
        final class PrivateBus {
            let address: String
            private let daemon: ChildProcess

            init() throws {
                let home = FileManager.default.temporaryDirectory.appendingPathComponent("crate-bus-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                let out = home.appendingPathComponent("address")
                // In the foreground, as a child of the test: its address is its first line of output.
                daemon = try ChildProcess(["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1"], output: out)
                var line = ""
                try waitUntil("dbus-daemon to print its address", seconds: 30) {
                    line = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? ""
                    return line.hasPrefix("unix:")
                }
                address = line
            }

            func tool(_ path: String, _ arguments: [String]) throws -> AppHarness.Result {
                try runTool(path, arguments, environment: ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 })
            }

            func playerctl(_ arguments: String...) throws -> String {
                let result = try tool("/usr/bin/playerctl", ["--player=crate"] + arguments)
                guard result.status == 0 else { throw Fixture.ToolError(description: "playerctl \(arguments): \(result.stderr)") }
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            deinit { daemon.stop(signal: SIGTERM) }
        }

        struct Setup {
            let app: AppHarness
            let daemon: Daemon
            let bus: PrivateBus

            init() throws {
                app = try AppHarness()
                _ = try app.crate("import", try app.makeMusic(frames: 44100 * 60).path)
                bus = try PrivateBus()
                daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null", "CRATE_OUTPUTS_NULL_RENDER": "false",
                                                 "CRATE_MPRIS_ENABLED": "true", "DBUS_SESSION_BUS_ADDRESS": bus.address])
                let played = try app.crate("play-album", "Record", env: daemon.env)
                #expect(played.status == 0, "\(played.stderr)")
                _ = try app.crate("pause", env: daemon.env)
                let bus = bus
                try waitUntil("playerctl to see crate on the bus", seconds: 30) {
                    (try bus.tool("/usr/bin/playerctl", ["--list-all"])).stdout.contains("crate")
                }
            }
        }

        @Test func playerctlReadsAndDrivesThePlayer() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let app = setup.app, daemon = setup.daemon, bus = setup.bus
            #expect(try bus.playerctl("status") == "Paused")
            #expect(try bus.playerctl("metadata", "title") == "Song 1")
            let metadata = try bus.playerctl("metadata")
            #expect(metadata.contains("xesam:album") && metadata.contains("Record"), "\(metadata)")
            #expect(metadata.contains("mpris:length") && metadata.contains("60000000"), "\(metadata)")
            #expect(metadata.contains("mpris:trackid") && metadata.contains("/org/crate/queue/"), "\(metadata)")

            _ = try bus.playerctl("play-pause")
            #expect(try app.waitFor(daemon) { $0.state == .playing }.state == .playing)
            #expect(try bus.playerctl("status") == "Playing")
            _ = try bus.playerctl("next")
            #expect(try app.waitFor(daemon) { $0.entry?.index == 2 }.entry?.index == 2)
            #expect(try bus.playerctl("metadata", "title") == "Song 2")
            _ = try bus.playerctl("position", "30")
            #expect(try app.waitFor(daemon) { $0.elapsed >= 30 }.elapsed >= 30)
            #expect((Double(try bus.playerctl("position")) ?? 0) >= 30)
            _ = try bus.playerctl("volume", "0.25")
            #expect(try app.status(daemon).modes.volume == 25)
            _ = try bus.playerctl("loop", "Playlist")
            #expect(try app.status(daemon).modes.repeatMode == .all)
            #expect(try bus.playerctl("loop") == "Playlist")
            _ = try bus.playerctl("pause")
            #expect(try app.waitFor(daemon) { $0.state == .paused }.state == .paused)

            // Introspection names both MPRIS interfaces with their methods and properties.
            let introspected = try bus.tool("/usr/bin/busctl", ["--address=\(bus.address)", "introspect", "org.mpris.MediaPlayer2.crate",
                                                                 "/org/mpris/MediaPlayer2"])
            #expect(introspected.stdout.contains(".PlayPause") && introspected.stdout.contains(".Metadata")
                    && introspected.stdout.contains(".DesktopEntry"), "\(introspected.stdout) \(introspected.stderr)")
            let plugins = try app.crate("plugins", env: daemon.env).stdout
            #expect(plugins.contains("mpris   on   org.mpris.MediaPlayer2.crate on the session bus"), "\(plugins)")
        }

        /// A track change made over HTTP reaches a desktop widget as PropertiesChanged (`playerctl --follow`).
        @Test func aTrackChangeOverHTTPReachesFollowers() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let out = setup.app.home.appendingPathComponent("follow.txt")
            let follow = try ChildProcess(["/usr/bin/playerctl", "--player=crate", "--follow", "metadata", "title"],
                                          extra: ["DBUS_SESSION_BUS_ADDRESS": setup.bus.address], output: out)
            defer { follow.stop(signal: SIGKILL) }
            func seen() -> String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
            // --follow prints the current title first: then it is listening.
            try waitUntil("playerctl --follow to print the current title", seconds: 30) { seen().contains("Song 1") }
            #expect(try setup.app.crate("next", env: setup.daemon.env).status == 0)
            try waitUntil("playerctl --follow to print the next title (it printed: \(seen()))", seconds: 30) { seen().contains("Song 2") }
        }

        /// Without a session bus (a server, CI) the front end declines and says why; crated runs on.
        @Test func withoutASessionBusItDeclinesAndSaysWhy() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app, extra: ["CRATE_MPRIS_ENABLED": "true", "DBUS_SESSION_BUS_ADDRESS": "",
                                                 "XDG_RUNTIME_DIR": app.home.path])
            defer { daemon.stop() }
            let plugins = try app.crate("plugins", env: daemon.env).stdout
            #expect(plugins.contains("mpris   off  off: no session bus: DBUS_SESSION_BUS_ADDRESS is not set"), "\(plugins)")
            #expect(daemon.text.contains("mpris: front end off: no session bus"), "\(daemon.text)")
        }
    }
}
