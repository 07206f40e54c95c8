import CrateDomain
import CrateTestSupport
import Foundation
import Glibc
import Testing

extension AppSuites {
    /// Issue 18: the MPD protocol front end, driven by Debian's `mpc` and by raw protocol lines, against a real crated.
    @Suite struct MPDProtocolTests {
        /// A daemon with the 3-track FLAC album imported, its MPD front end on a free port, and the album queued.
        struct Setup {
            let app: AppHarness
            let daemon: Daemon
            let port: Int

            init(extra: [String: String] = [:], queue: Bool = true) throws {
                app = try AppHarness()
                // Tracks of 60 s played by the null output at the sample clock: nothing ends while the test looks,
                // however slow the machine.
                _ = try app.crate("import", try app.makeMusic(frames: 44100 * 60).path)
                port = try Fixture.freePort()
                daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "null", "CRATE_OUTPUTS_NULL_RENDER": "false",
                                                 "CRATE_MPD_ADDRESS": "127.0.0.1:\(port)"].merging(extra) { $1 })
                if queue {
                    let played = try app.crate("play-album", "Record", env: daemon.env)
                    #expect(played.status == 0, "\(played.stderr)")
                    _ = try app.crate("pause", env: daemon.env)
                }
            }

            func mpc(_ arguments: String...) throws -> AppHarness.Result {
                try runTool("/usr/bin/mpc", ["--host", "127.0.0.1", "--port", "\(port)"] + arguments)
            }
        }

        @Test func mpcDrivesThePlayer() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let app = setup.app, daemon = setup.daemon
            let status = try setup.mpc("status")
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("Band - Song 1") && status.stdout.contains("[paused]  #1/3"), "\(status.stdout)")

            #expect(try setup.mpc("play").status == 0)
            #expect(try app.waitFor(daemon) { $0.state == .playing }.state == .playing)
            #expect(try setup.mpc("next").stdout.contains("Band - Song 2"))
            #expect(try app.status(daemon).entry?.index == 2)
            #expect(try setup.mpc("volume", "40").status == 0)
            #expect(try app.status(daemon).modes.volume == 40)
            #expect(try setup.mpc("volume").stdout.contains("volume: 40%"))
            #expect(try setup.mpc("pause").status == 0)
            #expect(try app.status(daemon).state == .paused)
            #expect(try setup.mpc("repeat", "on").status == 0)
            #expect(try app.status(daemon).modes.repeatMode == .all)
            #expect(try setup.mpc("random", "on").status == 0)
            #expect(try app.status(daemon).modes.shuffle)

            let titles = try setup.mpc("playlist").stdout.split(separator: "\n")
            #expect(titles == ["Band - Song 1", "Band - Song 2", "Band - Song 3"])
            // Files are named relative to the music folder, as MPD names them relative to its music_directory.
            let files = try setup.mpc("-f", "%file%", "playlist").stdout.split(separator: "\n")
            #expect(files.count == 3 && files.allSatisfy { !$0.hasPrefix("/") && $0.hasSuffix(".flac") }, "\(files)")

            let crossfade = try setup.mpc("crossfade", "3")
            #expect(crossfade.status != 0 && crossfade.stderr.contains("crossfade is not supported"), "\(crossfade.stderr)")
            #expect(try setup.mpc("clear").status == 0)
            #expect(try app.status(daemon).queueLength == 0)
        }

        /// `mpc idle` waits until another client changes something, then names the subsystem.
        @Test func idleWakesWhenAnotherClientChangesSomething() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let out = setup.app.home.appendingPathComponent("idle.txt")
            let idle = try ChildProcess(["mpc", "--host", "127.0.0.1", "--port", "\(setup.port)", "idle", "mixer"], output: out)
            defer { idle.stop(signal: SIGKILL) }
            // Until it is waiting, a change could come first and be reported to nobody: a ping on the same socket
            // cannot tell, so the change is repeated until idle answers (bounded).
            var code: Int32?
            for step in 0..<200 where code == nil {
                _ = try setup.app.crate("volume", "\(10 + step % 50)", env: setup.daemon.env)
                code = idle.waitForExit(seconds: 0.1)
            }
            #expect(code == 0)
            #expect((try? String(contentsOf: out, encoding: .utf8))?.contains("mixer") == true)
        }

        /// A playlist made elsewhere (the CLI) is a `stored_playlist` change; one made before the `idle` is kept for it.
        @Test func playlistChangesWakeStoredPlaylistIdle() throws {
            let setup = try Setup(queue: false)
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            let created = try setup.app.crate("playlist", "create", "Road", "Trip", env: setup.daemon.env)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(try session.send("idle stored_playlist") == "changed: stored_playlist\nOK\n")
        }

        @Test func commandListsErrorsAndUnknownCommandsAnswerAsMPDDoes() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            #expect(session.greeting.hasPrefix("OK MPD 0.23."))
            #expect(try session.send("frobnicate 1 2") == "ACK [5@0] {} unknown command \"frobnicate\"\n")
            #expect(try session.send("status now") == "ACK [2@0] {status} wrong number of arguments for \"status\"\n")
            // noidle outside idle is answered with nothing (the next reply is the ping's).
            #expect(try session.send("noidle\nping") == "OK\n")
            #expect(try session.send("ping") == "OK\n")
            #expect(try session.send("command_list_ok_begin\nping\ngetvol\ncommand_list_end") == "list_OK\nvolume: 100\nlist_OK\nOK\n")
            #expect(try session.send("command_list_begin\nping\nsetvol 300\nping\ncommand_list_end")
                    == "ACK [2@1] {setvol} Number too large: 300\n")
            #expect(try session.send("find \"album") == "ACK [5@0] {} Missing closing '\"'\n")
            let status = try session.send("status")
            #expect(status.contains("state: pause\n") && status.contains("playlistlength: 3\n") && status.hasSuffix("OK\n"), "\(status)")
            #expect(status.contains("crate_album_lock: 1\n"), "\(status)")
            let song = try session.send("currentsong")
            #expect(song.contains("Title: Song 1\n") && song.contains("Album: Record\n") && song.contains("Pos: 0\n"), "\(song)")
            #expect(try session.send("playlistinfo 5") == "ACK [2@0] {playlistinfo} Bad song index\n")
        }

        /// The database as MPD clients browse and search it: folders, tags, filter expressions, adding by URI.
        @Test func mpcFindsListsBrowsesAndAdds() throws {
            let setup = try Setup(queue: false)
            defer { setup.daemon.stop() }
            func lines(_ arguments: String...) throws -> [String] {
                let result = try runTool("/usr/bin/mpc", ["--host", "127.0.0.1", "--port", "\(setup.port)"] + arguments)
                #expect(result.status == 0, "mpc \(arguments): \(result.stderr)")
                return result.stdout.split(separator: "\n").map(String.init)
            }
            #expect(try lines("list", "album") == ["Record", "Tape"])
            #expect(try lines("list", "artist") == ["Band", "Other"])
            #expect(try lines("-f", "%title%", "find", "album", "Record") == ["Song 1", "Song 2", "Song 3"])
            #expect(try lines("-f", "%title%", "search", "title", "SONG 2") == ["Song 2"])
            let top = try lines("ls")
            #expect(top.count == 2 && top.allSatisfy { !$0.hasPrefix("/") }, "\(top)")
            let record = try lines("-f", "%file%", "find", "album", "Record")
            #expect(record.count == 3)
            // Adding a folder queues its songs in order; findadd queues what a filter finds.
            let folder = String(record[0].prefix { $0 != "/" })
            #expect(try setup.mpc("add", folder).status == 0)
            #expect(try setup.mpc("findadd", "artist", "Other").status == 0)
            #expect(try lines("playlist").suffix(2) == ["Other - Side 1", "Other - Side 2"])
            let queued = try setup.app.status(setup.daemon).queueLength
            #expect(queued >= 5, "\(queued)")

            let session = try MPDConnection(port: setup.port)
            let tape = try session.send(#"find "(album == \"Tape\")""#)
            #expect(tape.components(separatedBy: "file: ").count - 1 == 2, "\(tape)")
            let notBand = try session.send(#"find "(!(artist == \"Band\"))" sort title"#)
            #expect(notBand.contains("Title: Side 1") && !notBand.contains("Title: Song"), "\(notBand)")
            let both = try session.send(#"search "((album contains 'rec') AND (title == 'Song 3'))""#)
            #expect(both.contains("Title: Song 3") && both.components(separatedBy: "file: ").count - 1 == 1, "\(both)")
            #expect(try session.send("list album group albumartist") == "AlbumArtist: Band\nAlbum: Record\nAlbumArtist: Other\nAlbum: Tape\nOK\n")
            #expect(try session.send("count album Record").hasPrefix("songs: 3\nplaytime: "))
            let added = try session.send("addid \"\(record[2])\" 0")
            #expect(added.hasPrefix("Id: ") && added.hasSuffix("OK\n"), "\(added)")
            #expect(try setup.app.status(setup.daemon).queueLength == queued + 1)
            #expect(try session.send("add no/such/folder") == "ACK [50@0] {add} No such directory\n")
            #expect(try session.send(#"find "(colour == 'red')""#) == "ACK [2@0] {find} Unknown filter type: colour\n")
            let stats = try session.send("stats")
            #expect(stats.contains("songs: 5\n") && stats.contains("albums: 2\n") && stats.contains("artists: 2\n"), "\(stats)")
        }

        /// The port is taken (MPD may run there): crated runs on and says why its front end is off.
        @Test func aTakenPortLeavesTheDaemonRunningAndSaysWhy() throws {
            let first = try Setup(queue: false)
            defer { first.daemon.stop() }
            let app = try AppHarness()
            let second = try Daemon(app, extra: ["CRATE_MPD_ADDRESS": "127.0.0.1:\(first.port)"])
            defer { second.stop() }
            #expect(try app.crate("status", env: second.env).status == 0)
            #expect(second.text.contains("mpd: front end off: cannot listen on 127.0.0.1:\(first.port)"), "\(second.text)")
            // `crate plugins` asks the daemon which front ends serve.
            let plugins = try app.crate("plugins", env: second.env).stdout
            #expect(plugins.contains("mpd     off  off: cannot listen on 127.0.0.1:\(first.port)"), "\(plugins)")
            #expect(try app.crate("plugins", env: first.daemon.env).stdout.contains("mpd     on   127.0.0.1:\(first.port)"))
        }

        /// As for HTTP: off loopback a password is required; with one, only a few commands work before it.
        @Test func aPasswordGuardsTheFrontEnd() throws {
            let app = try AppHarness()
            let port = try Fixture.freePort()
            let exposed = try runTool(AppHarness.binary("crated").path, [],
                                      environment: app.environment.merging(["CRATE_MPD_ADDRESS": "0.0.0.0:\(port)"]) { $1 })
            #expect(exposed.status == 78 && exposed.stderr.contains("mpd.password"), "\(exposed.stderr)")

            let setup = try Setup(extra: ["CRATE_MPD_PASSWORD": "open sesame"], queue: false)
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            #expect(try session.send("ping") == "OK\n")
            #expect(try session.send("status") == "ACK [4@0] {status} you don't have permission for \"status\"\n")
            #expect(try session.send("password wrong") == "ACK [3@0] {password} incorrect password\n")
            #expect(try session.send("password \"open sesame\"") == "OK\n")
            #expect(try session.send("status").hasSuffix("OK\n"))
            #expect(!setup.daemon.text.contains("open sesame"))
        }
    }
}

/// One raw MPD protocol connection: lines out, the reply up to its final `OK` or `ACK` line in.
final class MPDConnection {
    private let fd: Int32
    private var buffered = ""
    let greeting: String

    init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)   // a hang guard: a reply that never comes fails the read
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Fixture.ToolError(description: "cannot connect to 127.0.0.1:\(port)") }
        greeting = try Self.readLine(fd, &buffered)
    }

    deinit { close(fd) }

    /// Sends `text` and a line feed; returns every line up to and including the one that ends the reply.
    func send(_ text: String) throws -> String {
        let bytes = Array((text + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw Fixture.ToolError(description: "write failed") }
        var reply = ""
        while true {
            let line = try Self.readLine(fd, &buffered)
            reply += line
            if line == "OK\n" || line.hasPrefix("ACK ") { return reply }
        }
    }

    private static func readLine(_ fd: Int32, _ buffered: inout String) throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: "\n") {
                let line = String(buffered[...newline])
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { throw Fixture.ToolError(description: "the connection ended or timed out; so far: \(buffered)") }
            buffered += String(decoding: chunk[..<n], as: UTF8.self)
        }
    }
}

