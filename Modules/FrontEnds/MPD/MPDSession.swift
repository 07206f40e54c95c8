import CrateCore
import CrateDomain

/// One client's conversation: command lists, the password, `idle`/`noidle`, `binarylimit`. It turns each request line
/// into the bytes to send back (text, and raw picture bytes for `albumart`); `close` ends the connection. The changes an
/// `idle` waits for reach the connection's `MPDIdle`, which answers the idle itself.
struct MPDSession {
    /// The protocol version in the greeting: the MPD release whose replies Crate follows.
    static let protocolVersion = "0.23.5"
    static let subsystems: Set<String> = ["database", "update", "stored_playlist", "playlist", "player", "mixer", "output",
                                          "options", "partition", "sticker", "subscription", "message", "neighbor", "mount"]
    /// Allowed before the password (as MPD allows them).
    static let withoutPassword: Set<String> = ["close", "commands", "notcommands", "password", "ping"]

    private var commands: MPDCommands
    let settings: MPDSettings
    private var authorized: Bool
    private var binaryLimit = MPDCommands.defaultBinaryLimit
    /// The commands of an open command list, and whether each is answered with `list_OK`.
    private var list: [String]?
    private var listOK = false
    let idle: MPDIdle

    init(commands: MPDCommands, settings: MPDSettings, idle: MPDIdle) {
        self.commands = commands
        self.settings = settings
        self.idle = idle
        authorized = settings.password == nil
    }

    /// Crate's events as the idle subsystems MPD names (none for those MPD clients cannot see).
    static func subsystems(of event: CrateEvent) -> [String] {
        switch event {
        case .player: ["player"]
        case .queue: ["playlist"]
        case .mixer: ["mixer"]
        case .options: ["options"]
        case .feeds: []
        case .output: ["output"]
        // A job: `update` when it starts and ends, `database` once when it is done (not per progress step).
        case .library(.job(_, .started)), .library(.job(_, .failed)): ["update"]
        case .library(.job(_, .done)): ["update", "database"]
        case .library(.job(_, .progress)): []
        case .library(.playlist): ["stored_playlist"]
        // Crate's one sticker is the favorite mark of a song.
        case .library(.opinion(.track, _, _)): ["sticker"]
        case .library(.opinion), .library(.recentAlbum), .library(.station), .library(.artworkRepair): []
        case .library(.missing), .library(.externalChange), .library(.tracks): ["database"]
        }
    }

    mutating func take(_ line: String) async -> (bytes: [UInt8], close: Bool) {
        if idle.isWaiting {
            // Only noidle may come while idle; MPD drops a client that sends anything else.
            guard line == "noidle" else { return ([], true) }
            return (Array((idle.end() ?? "").utf8), false)
        }
        if list != nil { return await takeListLine(line) }
        return await takeCommand(line)
    }

    private mutating func takeCommand(_ line: String) async -> (bytes: [UInt8], close: Bool) {
        let words: [String]
        do { words = try MPDArguments.split(line[...]) } catch {
            return (Array(error.line(command: "", index: 0).utf8), false)
        }
        guard let name = words.first else { return (Array(MPDError(.unknown, "No command given").line(command: "", index: 0).utf8), false) }
        let args = Array(words.dropFirst())
        switch name {
        case "command_list_begin", "command_list_ok_begin":
            list = []
            listOK = name == "command_list_ok_begin"
            return ([], false)
        case "close":
            return ([], true)
        case "idle":
            guard authorized else { return (Array(Self.permission(name).line(command: name, index: 0).utf8), false) }
            let wanted = Set(args.map { $0.lowercased() })
            if let unknown = wanted.first(where: { !Self.subsystems.contains($0) }) {
                return (Array(MPDError(.argument, "Unrecognized idle event: \(unknown)").line(command: name, index: 0).utf8), false)
            }
            return (Array((idle.wait(for: wanted) ?? "").utf8), false)
        case "noidle":
            // Not idle (or idle already answered): MPD answers nothing, and ncmpcpp counts on that.
            return ([], false)
        default:
            do {
                return (try await execute(name, args) + Array("OK\n".utf8), false)
            } catch {
                return (Array(error.line(command: Self.shownName(name, error), index: 0).utf8), false)
            }
        }
    }

    private mutating func takeListLine(_ line: String) async -> (bytes: [UInt8], close: Bool) {
        guard line == "command_list_end" else {
            list?.append(line)
            return ([], false)
        }
        let lines = list ?? []
        list = nil
        var out: [UInt8] = []
        for (index, item) in lines.enumerated() {
            let words: [String]
            do { words = try MPDArguments.split(item[...]) } catch { return (out + error.line(command: "", index: index).utf8, false) }
            guard let name = words.first else { return (out + MPDError(.unknown, "No command given").line(command: "", index: index).utf8, false) }
            if name == "close" { return (out, true) }
            do throws(MPDError) {
                guard !["idle", "noidle", "command_list_begin", "command_list_ok_begin"].contains(name) else {
                    throw MPDError(.argument, "\(name) is not allowed in a command list")
                }
                out += try await execute(name, Array(words.dropFirst()))
                if listOK { out += "list_OK\n".utf8 }
            } catch {
                return (out + error.line(command: Self.shownName(name, error), index: index).utf8, false)
            }
        }
        return (out + "OK\n".utf8, false)
    }

    private mutating func execute(_ name: String, _ args: [String]) async throws(MPDError) -> [UInt8] {
        if name == "password" {
            guard args.count == 1 else { throw MPDError(.argument, "wrong number of arguments for \"password\"") }
            guard settings.accepts(password: args[0]) else { throw MPDError(.password, "incorrect password") }
            authorized = true
            return []
        }
        guard authorized || Self.withoutPassword.contains(name) else { throw Self.permission(name) }
        try MPDCommands.checkArity(name, args.count)
        if name == "binarylimit" {
            binaryLimit = try MPDCommands.number(args, 0, in: MPDCommands.smallestBinaryLimit...Int(Int32.max))
            return []
        }
        if let bytes = try commands.binary(name, args, limit: binaryLimit) { return bytes }
        return Array(try await commands.run(name, args).utf8)
    }

    /// An unknown command is not named in its error (`{}`), as MPD does.
    private static func shownName(_ name: String, _ error: MPDError) -> String {
        error.code == .unknown && MPDCommands.arity[name] == nil ? "" : name
    }

    private static func permission(_ name: String) -> MPDError {
        MPDError(.permission, "you don't have permission for \"\(name)\"")
    }
}
