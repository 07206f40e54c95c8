import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// Issue 17 item 5 from the command line: `crate loudness scan` measures the library itself when no daemon runs and
    /// asks the daemon (a job it follows) when one does; `crate loudness` shows the values; the status shows the gain.
    @Suite struct LoudnessAppTests {
        @Test func scanLocallyThenShow() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            #expect(try app.crate("import", "--mode", "reference", music.path).status == 0)
            let scan = try app.crate("loudness", "scan", "--quiet")
            #expect(scan.status == 0 && scan.stdout.contains("loudness: 5 tracks and 2 albums measured"), "\(scan.stdout)\(scan.stderr)")
            #expect(scan.stdout.contains("Band — Record: ") && scan.stdout.contains("LUFS, true peak"), "\(scan.stdout)")
            let again = try app.crate("loudness", "scan", "all", "--quiet")
            #expect(again.stdout.contains("0 tracks and 0 albums measured, 5 tracks and 2 albums already current"), "\(again.stdout)")

            let summary = try app.crate("loudness")
            #expect(summary.status == 0 && summary.stdout.contains("mode auto") && summary.stdout.contains("measured 5"), "\(summary.stdout)")
            let show = try app.crate("loudness", "show", "Record")
            #expect(show.status == 0 && show.stdout.contains("album: ") && show.stdout.contains("01 Song 1: "), "\(show.stdout)")
            let json = try app.crate("loudness", "show", "Record", "--json")
            let info = try decodeJSON(AlbumLoudnessInfo.self, json.stdout)
            // The test sine: 440 Hz at amplitude 0.5 on both channels, −9.03 dB mean square each, +3.01 dB for the pair,
            // BS.1770's −0.691 offset, K-weighting ≈ 0 dB at 440 Hz: −6.7 LUFS.
            #expect(info.tracks.count == 3 && info.tracks.allSatisfy { abs(($0.scan?.integrated ?? 0) - -6.7) < 0.1 }, "\(info)")

            // A path the library does not hold: one clear line.
            let none = try app.crate("loudness", "scan", app.home.appendingPathComponent("elsewhere").path)
            #expect(none.status != 0 && none.stderr.contains("the library has no files there"), "\(none.stderr)")
        }

        @Test func scanRunsInTheDaemonAndTheStatusShowsTheGain() throws {
            let app = try AppHarness()
            let music = try app.makeMusic()
            #expect(try app.crate("import", "--mode", "reference", music.path).status == 0)
            let daemon = try Daemon(app)
            // The daemon's launch rescan is a library job too: the scan waits for it to end.
            try waitUntil("the launch rescan to end", seconds: 60) {
                let status = try Fixture.run("curl", ["-s", "http://127.0.0.1:\(daemon.port)/api/v1/library/status"])
                return !status.isEmpty && !status.replacingOccurrences(of: " ", with: "").contains("\"state\":\"running\"")
            }
            let scan = try app.crate("loudness", "scan", music.appendingPathComponent("Band").path, "--quiet", env: daemon.env)
            #expect(scan.status == 0 && scan.stdout.contains("loudness: 3 tracks and 1 album measured"), "\(scan.stdout)\(scan.stderr)")
            let shown = try app.crate("play-album", "Record", env: daemon.env)
            #expect(shown.status == 0 && shown.stdout.contains("loudness: album gain -11.3 dB") && shown.stdout.contains("(auto, scan)"),
                    "\(shown.stdout)\(shown.stderr)")
            let played = try app.crate("play-album", "Record", "--json", env: daemon.env)
            let status = try decodeJSON(PlayerStatus.self, played.stdout)
            let loudness = try #require(status.loudness, "\(played.stdout)")
            #expect(loudness.mode == .auto && loudness.source == .album && loudness.origin == .scan)
            // −18 − (−6.7) = −11.3 dB.
            #expect(abs(loudness.gainDB - -11.3) < 0.1, "\(loudness)")
        }
    }
}
