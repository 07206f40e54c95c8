import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// Issue 18: stored playlists, the favorite sticker, queue edits, update and tag types over the MPD protocol, each
    /// checked against what Crate's own API then shows.
    @Suite struct MPDLibraryCommandTests {
        typealias Setup = MPDProtocolTests.Setup

        @Test func mpcSavesLoadsListsAndRemovesPlaylists() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            #expect(try setup.mpc("save", "Mix").status == 0)
            // mpc's lsplaylists reads them from the root folder's listing, as MPD puts them there.
            #expect(try setup.mpc("lsplaylists").stdout == "Mix\n")
            #expect(try setup.mpc("playlist", "Mix").stdout == "Band - Song 1\nBand - Song 2\nBand - Song 3\n")
            #expect(try setup.mpc("clear").status == 0)
            #expect(try setup.mpc("load", "Mix").status == 0)
            #expect(try setup.app.status(setup.daemon).queueLength == 3)
            // The same playlist is Crate's: the HTTP API lists it.
            let listed = try runTool("/usr/bin/curl", ["-s", "http://127.0.0.1:\(setup.daemon.port)/api/v1/playlists"])
            #expect(listed.stdout.contains("\"name\":\"Mix\""), "\(listed.stdout)")

            let session = try MPDConnection(port: setup.port)
            let files = try session.send("listplaylist Mix").split(separator: "\n").filter { $0.hasPrefix("file: ") }
            #expect(files.count == 3)
            #expect(try session.send("save Mix") == "ACK [56@0] {save} Playlist already exists\n")
            #expect(try session.send("rename Mix Best") == "OK\n")
            #expect(try session.send("playlistadd Best \"\(files[0].dropFirst(6))\"") == "OK\n")
            #expect(try session.send("playlistdelete Best 1") == "OK\n")
            #expect(try session.send("playlistmove Best 0 2") == "OK\n")
            let titles = try session.send("listplaylistinfo Best").split(separator: "\n").filter { $0.hasPrefix("Title: ") }
            #expect(titles == ["Title: Song 3", "Title: Song 1", "Title: Song 1"], "\(titles)")
            #expect(try session.send("playlistclear Best") == "OK\n")
            #expect(try session.send("listplaylist Best") == "OK\n")
            #expect(try session.send("rm Best") == "OK\n")
            #expect(try session.send("rm Best") == "ACK [50@0] {rm} No such playlist\n")
            #expect(try session.send("listplaylists") == "OK\n")
        }

        /// `favorite` is the one sticker: it is Crate's favorite mark on the track, seen by the HTTP API too.
        @Test func theFavoriteStickerIsCratesFavoriteMark() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            let file = try session.send("currentsong").split(separator: "\n").first { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) } ?? ""
            #expect(try session.send("sticker get song \"\(file)\" favorite") == "ACK [50@0] {sticker} no such sticker\n")
            #expect(try session.send("sticker set song \"\(file)\" favorite 1") == "OK\n")
            #expect(try session.send("sticker get song \"\(file)\" favorite") == "sticker: favorite=1\nOK\n")
            #expect(try session.send("sticker list song \"\(file)\"") == "sticker: favorite=1\nOK\n")
            #expect(try session.send("sticker find song \"\" favorite") == "file: \(file)\nsticker: favorite=1\nOK\n")
            let favorites = try runTool("/usr/bin/curl", ["-s", "http://127.0.0.1:\(setup.daemon.port)/api/v1/favorites/tracks"])
            #expect(favorites.stdout.contains("\"title\":\"Song 1\""), "\(favorites.stdout)")
            #expect(try session.send("sticker set song \"\(file)\" rating 5").hasPrefix("ACK [2@0] {sticker} Crate keeps one sticker"))
            #expect(try session.send("sticker delete song \"\(file)\" favorite") == "OK\n")
            #expect(try session.send("sticker list song \"\(file)\"") == "OK\n")
        }

        /// Ranges move as blocks; shuffle moves whole albums and never reorders one; plchanges answers by version.
        @Test func queueEditsKeepAlbumsWhole() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            #expect(try setup.mpc("findadd", "album", "Tape").status == 0)
            let session = try MPDConnection(port: setup.port)
            func titles() throws -> [String] {
                try session.send("playlistinfo").split(separator: "\n").filter { $0.hasPrefix("Title: ") }.map { String($0.dropFirst(7)) }
            }
            #expect(try titles() == ["Song 1", "Song 2", "Song 3", "Side 1", "Side 2"])
            #expect(try session.send("move 3:5 0") == "OK\n")
            #expect(try titles() == ["Side 1", "Side 2", "Song 1", "Song 2", "Song 3"])
            #expect(try session.send("move 0:2 3") == "OK\n")
            #expect(try titles() == ["Song 1", "Song 2", "Song 3", "Side 1", "Side 2"])
            for _ in 0..<5 {
                #expect(try session.send("shuffle") == "OK\n")
                let order = try titles()
                #expect(order == ["Song 1", "Song 2", "Song 3", "Side 1", "Side 2"] || order == ["Side 1", "Side 2", "Song 1", "Song 2", "Song 3"],
                        "\(order)")
            }
            let version = try session.send("status").split(separator: "\n").first { $0.hasPrefix("playlist: ") }.map { String($0.dropFirst(10)) } ?? ""
            #expect(try session.send("plchangesposid \(version)") == "OK\n")
            #expect(try session.send("plchangesposid 0").components(separatedBy: "cpos: ").count - 1 == 5)
            #expect(try session.send("delete 3:") == "OK\n")
            #expect(try setup.app.status(setup.daemon).queueLength == 3)
        }

        /// `update` starts Crate's rescan and answers with a job number; idle reports `update`, then `database`.
        @Test func updateRescansAndIdleSaysWhenItIsDone() throws {
            let setup = try Setup(queue: false)
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            // Changes are kept for the connection until an idle reports them: an idle after the update still hears of it.
            var answer = try session.send("update")
            for _ in 0..<100 where answer.hasPrefix("ACK [54@0]") { // the start-up rescan may still run
                try waitUntil("the start-up rescan to end", seconds: 60) { !(try session.send("status")).contains("updating_db") }
                answer = try session.send("update")
            }
            #expect(answer.hasPrefix("updating_db: ") && answer.hasSuffix("\nOK\n"), "\(answer)")
            // The job's start and its end arrive as `update` and then `database` (once, when it is done); an idle that
            // ends drops what it did not report, so the one idle waits for both.
            var seen: [String] = []
            for _ in 0..<20 where !seen.contains("changed: database") {
                seen += try session.send("idle update database").split(separator: "\n").map(String.init).filter { $0 != "OK" }
            }
            #expect(seen.contains("changed: update") && seen.contains("changed: database"), "\(seen)")
            try waitUntil("status to show no update running", seconds: 60) { !(try session.send("status")).contains("updating_db") }
        }

        @Test func tagTypesNarrowWhatSongsCarry() throws {
            let setup = try Setup()
            defer { setup.daemon.stop() }
            let session = try MPDConnection(port: setup.port)
            #expect(try session.send("tagtypes").contains("tagtype: AlbumArtist\n"))
            // mpc enables MPD tags Crate does not keep (Name): accepted, never sent.
            #expect(try session.send("command_list_begin\ntagtypes clear\ntagtypes enable Title Name\ncommand_list_end") == "OK\n")
            let song = try session.send("currentsong")
            #expect(song.contains("Title: Song 1\n") && !song.contains("Artist:") && !song.contains("Album:"), "\(song)")
            #expect(try session.send("tagtypes enable Colour") == "ACK [2@0] {tagtypes} Unknown tag type: Colour\n")
            #expect(try session.send("tagtypes all") == "OK\n")
            #expect(try session.send("currentsong").contains("Artist: Band\n"))
            let decoders = try session.send("decoders")
            #expect(decoders.contains("plugin: flac\nsuffix: flac\n"), "\(decoders)")
        }
    }
}
