import CrateCore
import CrateDomain
import CrateFeeds
@testable import MPDFrontEnd
import CratePlugins
import CrateTestSupport
import Foundation
import NIOCore
import Synchronization
import Testing

/// The MPD front end in this process, no daemon and no socket: request lines fed to an `MPDSession` over a real
/// library and player, the tokenizer and the filter parser on their own, and idle subsystems derived from events.
@Suite(.promptly) struct MPDSessionTests {
    @Test func theTokenizerWorksOnBytesSoACombiningMarkCannotHideAQuote() throws {
        // Found by Fuzz/MPDCommandLine: as Characters, `"` + U+0301 is one cluster and was not seen as a quote.
        #expect(try MPDArguments.split("add \"\u{301}x y\"") == ["add", "\u{301}x y"])
        #expect(try MPDArguments.split("find \"(title == \\\"A\\\")\" sort Title") == ["find", "(title == \"A\")", "sort", "Title"])
        #expect(throws: MPDError.self) { try MPDArguments.split("add \"open") }
    }

    @Test func filterNestingIsBoundedAndValuesMayStartWithACombiningMark() throws {
        let deep = String(repeating: "(!", count: 70) + "(title == 'x')" + String(repeating: ")", count: 70)
        #expect { try MPDFilter.parse([deep], caseless: false) } throws: { ($0 as? MPDError)?.message == "Expression nested too deeply" }
        let nested = String(repeating: "(!", count: 20) + "(title == 'x')" + String(repeating: ")", count: 20)
        _ = try MPDFilter.parse([nested], caseless: false)
        guard case let .compare(_, _, value, _) = try MPDFilter.parse(["(title == \"\u{301}x\")"], caseless: false) else {
            Issue.record("not a comparison")
            return
        }
        #expect(value == "\u{301}x")
    }

    @Test func idleSubsystemsAreDerivedFromTheTypedEvents() {
        #expect(MPDSession.subsystems(of: .queue(.cleared)) == ["playlist"])
        #expect(MPDSession.subsystems(of: .library(.playlist(id: 3, .added(count: 2)))) == ["stored_playlist"])
        #expect(MPDSession.subsystems(of: .library(.opinion(kind: .track, id: "4", .favorite))) == ["sticker"])
        #expect(MPDSession.subsystems(of: .library(.opinion(kind: .album, id: "4", .favorite))) == [])
        #expect(MPDSession.subsystems(of: .library(.job(kind: "rescan", phase: .done(summary: "")))) == ["update", "database"])
        #expect(MPDSession.subsystems(of: .library(.job(kind: "rescan", phase: .progress(done: 1, total: 2)))) == [])
        #expect(MPDSession.subsystems(of: .feeds(.wall(.mixed))) == [])
        // A tag edit made through the HTTP API changes what MPD clients list.
        #expect(MPDSession.subsystems(of: .library(.tracks([7], .edited))) == ["database"])
    }

    @Test func aSessionFedLinesAnswersAsMPDDoes() async throws {
        let runtime = try oneAlbumRuntime("crate-mpd-session")
        let player = try await PlayerService.start(runtime: runtime)
        let jobs = LibraryJobs(library: runtime.library, events: runtime.events)
        let written = Mutex<[String]>([])
        let idle = MPDIdle { answer in written.withLock { $0.append(String(buffer: answer)) } }
        var session = MPDSession(commands: MPDFrontEnd.commands(runtime, player, jobs), settings: MPDSettings(), idle: idle)
        func say(_ line: String) async -> String { String(decoding: await session.take(line).bytes, as: UTF8.self) }

        #expect(await say("status").contains("state: stop\n"))
        #expect(await say("findadd \"(album == \\\"A\\\")\"") == "OK\n")
        let queue = await say("playlistinfo")
        #expect(queue.contains("Title: A1\n") && queue.contains("Title: A2\n") && queue.hasSuffix("OK\n"), "\(queue)")
        #expect(await say("command_list_ok_begin").isEmpty)
        #expect(await say("ping").isEmpty)
        #expect(await say("bogus").isEmpty)
        #expect(await say("command_list_end") == "list_OK\nACK [5@1] {} unknown command \"bogus\"\n")
        // delete 0:2 removes the range in one transaction and one queue change.
        let changes = runtime.events.subscribe()
        #expect(await say("delete 0:2") == "OK\n")
        #expect(try await player.queue().isEmpty)
        let first = try await withHangGuard("the queue event of delete 0:2", seconds: 30) { () async -> CrateEvent? in
            for await event in changes { return event }
            return nil
        }
        #expect(first == .queue(.removedRange(1...2)))
        // idle waits: a change it does not wait for is kept, one it waits for is answered by the connection's MPDIdle
        // (once, with both, as MPD does: an idle that ends reports every pending change it waits for).
        #expect(await say("idle playlist player").isEmpty)
        var answers: [Set<String>: ByteBuffer] = [:]
        idle.changed(["mixer"], answers: &answers)
        #expect(written.withLock { $0 }.isEmpty)
        idle.changed(["playlist"], answers: &answers)
        idle.changed(["player"], answers: &answers)
        #expect(written.withLock { $0 } == ["changed: playlist\nOK\n"])
        // The player change came after the idle ended: the next idle reports it at once; the mixer change was dropped
        // with the idle that ended (MPD drops every pending change then).
        #expect(await say("idle") == "changed: player\nOK\n")
        // noidle ends a waiting idle with a bare OK; a noidle with no idle waiting is not answered.
        #expect(await say("idle").isEmpty)
        #expect(await say("noidle") == "OK\n")
        #expect(await say("noidle").isEmpty)
        // Anything but noidle while idle ends the connection.
        #expect(await say("idle").isEmpty)
        #expect(await session.take("status").close)
        await player.shutdown()
    }
}
