import ArgumentParser
import CrateCore
import CrateClient
import CrateDomain
import CratePlugins
import Foundation

/// Every command names itself (`commandName`): without it ArgumentParser derives the name from the type with
/// `String(describing:)`, whose protocol-conformance scans over this large static binary took a third of each
/// `crate` start (13 of 37 ms, issue 30). CrateAppsTests checks that none is left unnamed.
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
            Edit.self, Delete.self, Missing.self, Library.self, LoudnessCommand.self, Config.self,
            Stations.self, Users.self, PlayURL.self, Status.self, Play.self, Pause.self, Toggle.self, Stop.self, Next.self, Prev.self, Seek.self, Volume.self,
            Repeat.self, Shuffle.self, StopAfterAlbum.self, PlayAlbum.self, Queue.self, History.self, Outputs.self, Watch.self,
        ])

    /// ArgumentParser's entry, with two habits of other CLIs: `--config FILE` before the command (it is passed on as
    /// `$CRATE_CONFIG`, which every command reads), and "did you mean" for a mistyped command.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        while let first = arguments.first, first == "--config" || first.hasPrefix("--config=") {
            if first == "--config" {
                guard arguments.count > 1 else { break }
                setenv("CRATE_CONFIG", arguments[1], 1)
                arguments.removeFirst(2)
            } else {
                setenv("CRATE_CONFIG", String(first.dropFirst("--config=".count)), 1)
                arguments.removeFirst()
            }
        }
        if let first = arguments.first, !first.hasPrefix("-"), let suggestion = suggestion(for: first) {
            FileHandle.standardError.write(Data("crate: '\(first)' is not a command. Did you mean '\(suggestion)'? (crate --help lists them)\n".utf8))
            Foundation.exit(64)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand { try await command.run() } else { try command.run() }
        } catch {
            exit(withError: error)
        }
    }

    /// The nearest command name to a word that is none (within two edits), or nil when the word is a command.
    static func suggestion(for word: String) -> String? {
        let names = configuration.subcommands.map { command in command._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        return NearestName.nearest(to: word, among: names)
    }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Config file (default: $CRATE_CONFIG or ~/.config/crate/config.yaml).")
    var config: String?

    /// How a command uses the library: commands that only read open it read-only (never creating or migrating it);
    /// commands that write hold the library lock for their run (the single-writer rule, Docs/ARCHITECTURE.md).
    enum Access { case read, write }

    /// The settings alone: no database is opened (player and queue commands only need the daemon's address).
    func settings() async throws -> Settings {
        do {
            return try await SettingsLoader.load(configPath: config, plugins: CratePlugins.list)
        } catch {
            throw CLIError(ErrorText.describe(error))
        }
    }

    func runtime(_ access: Access = .read, _ overrides: @escaping (inout Settings) -> Void = { _ in }) async throws -> CrateRuntime {
        var settings = try await settings()
        overrides(&settings)
        // The lock before the database: a writer never opens (or migrates) the library beside the daemon.
        if access == .write { try WriterLock.hold(settings) }
        do {
            return try CrateRuntime.open(settings: settings, plugins: CratePlugins.list, access: access == .read ? .readOnly : .readWrite)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(ErrorText.describe(error))
        }
    }

    /// Where this command's work goes: crated when it runs (its writes reach every client as events), else the
    /// library, opened with `access` (a writer holds the library lock for the run).
    func backend(_ access: Access = .write) async throws -> any CrateBackend {
        if let daemon = try await daemon() { return RemoteBackend(client: daemon) }
        return LocalBackend(runtime: try await runtime(access))
    }

    /// The daemon when it runs (its writes reach every client as events), else nil.
    func daemon() async throws -> DaemonClient? {
        let client = DaemonClient(settings: try await settings())
        return await client.isRunning() ? client : nil
    }
}

/// This process's hold on the library lock, kept until it exits.
enum WriterLock {
    nonisolated(unsafe) private static var held: LibraryLock?

    static func hold(_ settings: Settings) throws {
        guard held == nil else { return }
        do {
            held = try LibraryLock.acquire(dataDirectory: settings.dataDirectory)
        } catch {
            throw CLIError("\(ErrorText.describe(error)) (this command writes the library and cannot while crated runs beside it: stop crated, or use its HTTP API)")
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

extension DaemonClient {
    /// The daemon named by the settings (`http.address`, and `http.token` when set).
    init(settings: Settings) {
        self.init(address: settings.httpClientAddress, token: settings.http.token)
    }
}
