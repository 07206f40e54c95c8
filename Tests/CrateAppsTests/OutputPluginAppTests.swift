import CrateDomain
import CrateTestSupport
import Foundation
import Testing

extension AppSuites {
    /// Issue 17 item 2: the ALSA and pipe outputs through the real daemon. ALSA plays into a `file` PCM over the
    /// `null` PCM defined in the test's own ~/.asoundrc (no sound card needed), the pipe output into `cat`.
    @Suite struct OutputPluginAppTests {
        /// The album "Record" of `makeMusic` decoded by ffmpeg, one file after the other, as raw `format` bytes.
        static func albumBytes(_ app: AppHarness, format: String) throws -> Data {
            var all = Data()
            for n in 1...3 {
                let file = app.home.appendingPathComponent("music/Band/Record/0\(n).flac").path
                let raw = app.home.appendingPathComponent("track\(n).raw").path
                _ = try Fixture.run("ffmpeg", ["-v", "error", "-y", "-i", file, "-f", format, "-ac", "2", raw])
                all += try Data(contentsOf: URL(fileURLWithPath: raw))
            }
            return all
        }

        static func size(_ url: URL) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
        }

        @Test func alsaPlaysTheAlbumExactlyIntoAFilePCM() throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let capture = app.home.appendingPathComponent("capture.raw")
            try """
            pcm.cratefile {
                type file
                slave.pcm "null"
                file "\(capture.path)"
                format "raw"
            }
            """.write(to: app.home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "alsa", "CRATE_OUTPUTS_ALSA_DEVICE": "cratefile"])
            #expect(try app.status(daemon).outputError == nil)
            #expect(try app.crate("play-album", "Record", env: daemon.env).status == 0)
            let done = try app.waitFor(daemon) { $0.state == .stopped }
            #expect(done.state == .stopped && done.outputError == nil, "\(String(describing: done.outputError))")
            // The device took 32-bit float (the null PCM takes anything): the file holds the decoded samples exactly,
            // perhaps followed by silence ALSA padded the last period with.
            let expected = try Self.albumBytes(app, format: "f32le")
            try waitUntil("the album's \(expected.count) bytes in \(capture.lastPathComponent)", seconds: 30) {
                Self.size(capture) >= expected.count
            }
            let captured = try Data(contentsOf: capture)
            #expect(captured.prefix(expected.count) == expected, "the captured audio differs from the album")
            #expect(captured.dropFirst(expected.count).allSatisfy { $0 == 0 }, "more than padding after the album")
            #expect(daemon.stop() == 0)
            #expect(daemon.text.contains("output 'alsa' chosen by configuration"))
        }

        @Test func aMissingALSADeviceIsAClearErrorInStatus() throws {
            let app = try AppHarness()
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "alsa", "CRATE_OUTPUTS_ALSA_DEVICE": "hw:9,0"])
            let trouble = try #require(try app.status(daemon).outputError)
            #expect(trouble.output == "alsa" && trouble.reason.contains("ALSA device 'hw:9,0'") && trouble.reason.contains("aplay -L"),
                    "\(trouble.reason)")
            #expect(daemon.stop() == 0)
        }

        @Test func thePipeOutputFeedsACommandTheAlbumAsSixteenBitPCM() throws {
            let app = try AppHarness()
            _ = try app.crate("import", try app.makeMusic().path)
            let out = app.home.appendingPathComponent("pipe.raw"), env = app.home.appendingPathComponent("env.txt")
            let command = "echo \"$CRATE_RATE $CRATE_CHANNELS $CRATE_FORMAT\" > '\(env.path)'; cat > '\(out.path)'"
            let daemon = try Daemon(app, extra: ["CRATE_OUTPUT_PLUGIN": "pipe", "CRATE_OUTPUTS_PIPE_COMMAND": command])
            #expect(try app.crate("play-album", "Record", env: daemon.env).status == 0)
            let done = try app.waitFor(daemon) { $0.state == .stopped }
            #expect(done.state == .stopped && done.outputError == nil, "\(String(describing: done.outputError))")
            let expected = try Self.albumBytes(app, format: "s16le")
            try waitUntil("the album's \(expected.count) bytes through the pipe", seconds: 30) { Self.size(out) >= expected.count }
            #expect(try Data(contentsOf: out) == expected, "the command did not get the album's samples")
            #expect(try String(contentsOf: env, encoding: .utf8) == "44100 2 s16le\n")
            #expect(daemon.stop() == 0)
        }

        @Test func thePipeOutputWithoutACommandSaysWhatToSet() throws {
            let app = try AppHarness()
            let plugins = try app.crate("plugins")
            #expect(plugins.stdout.contains("no command: set outputs.pipe.command"), "\(plugins.stdout)")
        }
    }
}
