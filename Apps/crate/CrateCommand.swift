import ArgumentParser
import CrateCore
import CrateDomain
import CratePlugins
import Foundation

@main
struct Crate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crate",
        abstract: "Crate: an album-first music system.",
        version: CrateVersion.string,
        subcommands: [
            Plugins.self, Import.self, Rescan.self, Albums.self, Tracks.self, Artists.self, Search.self, HomeCommand.self,
            Fav.self, Like.self, Dislike.self, PlaylistCommand.self, LyricsCommand.self, Catalog.self,
            Wall.self, GenreFeed.self, Dial.self, Feed.self,
            Edit.self, Delete.self, Missing.self, Library.self, Config.self,
            Status.self, Play.self, Pause.self, Toggle.self, Stop.self, Next.self, Prev.self, Seek.self, Volume.self,
            Repeat.self, Shuffle.self, StopAfterAlbum.self, PlayAlbum.self, Queue.self, History.self, Watch.self,
        ])
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Config file (default: $CRATE_CONFIG or ~/.config/crate/config.yaml).")
    var config: String?

    func runtime(_ overrides: @escaping (inout Settings) -> Void = { _ in }) async throws -> CrateRuntime {
        do {
            return try await CrateRuntime.start(plugins: CratePlugins.list, configPath: config, overrides: overrides)
        } catch {
            throw CLIError(ErrorText.describe(error))
        }
    }
}

/// A failure the user reads on one line, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Runs a throwing body, turning any error into a one-line `CLIError` (no stack dumps for users).
func userFacing<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as CLIError { throw error } catch {
        throw CLIError(ErrorText.describe(error))
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// 3:07, or 1:02:03 past an hour.
func clock(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
}
