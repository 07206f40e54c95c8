import ArgumentParser
import CrateAudio
import CrateCore
import CrateDomain
import Dispatch
import Foundation

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an album in album order, in the foreground (Ctrl-C stops).")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "Album id, title, or words from 'artist title'.") var album: String
    @Option(help: "Start at this track (1 = the first track in album order).") var from: Int = 1
    @Option(help: "Output: auto, pulse, wav or null (default: the configured output).") var output: String?

    func run() async throws {
        let runtime = try await options.runtime()
        let (found, items) = try userFacing { () throws -> (Album, [PlaybackItem]) in
            let found = try runtime.store.resolveAlbum(album)
            let tracks = try runtime.store.tracks(albumID: found.id)
            guard (1...max(tracks.count, 1)).contains(from) else {
                throw CLIError("'\(found.title)' has \(tracks.count) tracks; --from must be between 1 and \(tracks.count)")
            }
            let items = try tracks.dropFirst(from - 1).map { t -> PlaybackItem in
                guard case .file(let url) = try runtime.sources.locate(t.ref) else {
                    throw CLIError("\(t.ref) is not a local file")
                }
                return PlaybackItem(title: t.title, artist: t.artist, url: url, trackNumber: t.trackNumber)
            }
            return (found, items)
        }
        live("Playing \(found.artist) — \(found.title), \(items.count) of \(found.trackCount) tracks")

        let outputChoice = output, first = from
        let stop = StopSignal()
        let interrupt = Self.onInterrupt { stop.raise() }
        defer { interrupt.cancel() }
        let outcome = try await Self.onThread { () throws -> PlaybackOutcome in
            let out = try userFacing { try runtime.makeOutput(outputChoice) }
            let run = PlaybackRun(decoders: runtime.decoders, output: out)
            return try userFacing {
                try run.play(items, stop: stop) { event in
                    switch event {
                    case let .outputOpened(format, destination):
                        live("Output: \(destination) (\(format))")
                    case let .trackStarted(index, item, info):
                        let n = String(first + index)
                        live("▶ \(n)/\(found.trackCount)  \(item.title) — \(item.artist)  [\(info.summary)]"
                            + (info.duration.map { "  \(clock($0))" } ?? ""))
                    case let .trackSkipped(_, item, reason):
                        live("✗ skipped \(item.title): \(reason)")
                    case .trackFinished:
                        break
                    }
                }
            }
        }
        live(outcome == .stopped ? "Stopped." : "Finished \(found.title).")
    }

    /// Runs blocking audio work on its own thread, off Swift's cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "crate-playback"
            thread.start()
        }
    }

    /// Ctrl-C raises the stop signal once; a second Ctrl-C exits at once.
    static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = StopSignal()
        source.setEventHandler {
            if count.isRaised { Foundation.exit(130) }
            count.raise()
            handler()
        }
        source.resume()
        return source
    }
}

/// Writes a line straight to standard output: "now playing" lines must show as they happen,
/// also through a pipe or into a file (`crate play X | tee log`), where `print` would hold them back.
func live(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
