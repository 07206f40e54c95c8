import CrateCore

/// What reaches a connection: a request line, a change in the daemon, or the client's end.
enum MPDInput: Sendable {
    case line(String)
    case changed(String)
    case end
}

/// One client's conversation: command lists, the password, `idle`/`noidle`. It turns each input into the text to send
/// back; `close` ends the connection.
struct MPDSession {
    /// The protocol version in the greeting: the MPD release whose replies Crate follows.
    static let protocolVersion = "0.23.5"
    static let subsystems: Set<String> = ["database", "update", "stored_playlist", "playlist", "player", "mixer", "output",
                                          "options", "partition", "sticker", "subscription", "message", "neighbor", "mount"]
    /// Allowed before the password (as MPD allows them).
    static let withoutPassword: Set<String> = ["close", "commands", "notcommands", "password", "ping"]

    let commands: MPDCommands
    let settings: MPDSettings
    private var authorized: Bool
    /// The commands of an open command list, and whether each is answered with `list_OK`.
    private var list: [String]?
    private var listOK = false
    /// While idle: the subsystems waited for (empty: all).
    private var idle: Set<String>?
    /// Changes not yet reported by an `idle`.
    private var pending: Set<String> = []

    init(commands: MPDCommands, settings: MPDSettings) {
        self.commands = commands
        self.settings = settings
        authorized = settings.password == nil
    }

    /// Crate's event subsystems as MPD's idle names them.
    static func subsystem(of event: CrateEvent) -> String? {
        switch event.subsystem {
        case "player": "player"
        case "queue": "playlist"
        case "mixer": "mixer"
        case "options": "options"
        // Playlists are library events ("playlist 3 renamed"): MPD names those stored_playlist.
        case "library": event.detail?.hasPrefix("playlist") == true ? "stored_playlist" : "database"
        default: nil
        }
    }

    mutating func take(_ input: MPDInput) async -> (text: String, close: Bool) {
        switch input {
        case .end:
            return ("", true)
        case .changed(let subsystem):
            pending.insert(subsystem)
            return (idle == nil ? "" : reportIdle(), false)
        case .line(let line):
            if idle != nil {
                // Only noidle may come while idle; MPD drops a client that sends anything else.
                guard line == "noidle" else { return ("", true) }
                let wanted = idle ?? []
                idle = nil
                return (changedLines(wanted) + "OK\n", false)
            }
            if list != nil { return await takeListLine(line) }
            return await takeCommand(line)
        }
    }

    private mutating func takeCommand(_ line: String) async -> (text: String, close: Bool) {
        let words: [String]
        do { words = try MPDArguments.split(line[...]) } catch {
            return (error.line(command: "", index: 0), false)
        }
        guard let name = words.first else { return (MPDError(.unknown, "No command given").line(command: "", index: 0), false) }
        let args = Array(words.dropFirst())
        switch name {
        case "command_list_begin", "command_list_ok_begin":
            list = []
            listOK = name == "command_list_ok_begin"
            return ("", false)
        case "close":
            return ("", true)
        case "idle":
            guard authorized else { return (Self.permission(name).line(command: name, index: 0), false) }
            let wanted = Set(args.map { $0.lowercased() })
            if let unknown = wanted.first(where: { !Self.subsystems.contains($0) }) {
                return (MPDError(.argument, "Unrecognized idle event: \(unknown)").line(command: name, index: 0), false)
            }
            idle = wanted
            return (reportIdle(), false)
        case "noidle":
            return ("OK\n", false)
        default:
            do {
                return (try await execute(name, args) + "OK\n", false)
            } catch {
                return (error.line(command: name, index: 0), false)
            }
        }
    }

    private mutating func takeListLine(_ line: String) async -> (text: String, close: Bool) {
        guard line == "command_list_end" else {
            list?.append(line)
            return ("", false)
        }
        let lines = list ?? []
        list = nil
        var out = ""
        for (index, item) in lines.enumerated() {
            let words: [String]
            do { words = try MPDArguments.split(item[...]) } catch { return (out + error.line(command: "", index: index), false) }
            guard let name = words.first else { return (out + MPDError(.unknown, "No command given").line(command: "", index: index), false) }
            if name == "close" { return (out, true) }
            do throws(MPDError) {
                guard !["idle", "noidle", "command_list_begin", "command_list_ok_begin"].contains(name) else {
                    throw MPDError(.argument, "\(name) is not allowed in a command list")
                }
                out += try await execute(name, Array(words.dropFirst()))
                if listOK { out += "list_OK\n" }
            } catch {
                return (out + error.line(command: name, index: index), false)
            }
        }
        return (out + "OK\n", false)
    }

    private mutating func execute(_ name: String, _ args: [String]) async throws(MPDError) -> String {
        if name == "password" {
            guard args.count == 1 else { throw MPDError(.argument, "wrong number of arguments for \"password\"") }
            guard settings.accepts(password: args[0]) else { throw MPDError(.password, "incorrect password") }
            authorized = true
            return ""
        }
        guard authorized || Self.withoutPassword.contains(name) else { throw Self.permission(name) }
        return try await commands.run(name, args)
    }

    private static func permission(_ name: String) -> MPDError {
        MPDError(.permission, "you don't have permission for \"\(name)\"")
    }

    /// The end of an idle when a change it waits for is pending: `changed:` lines and `OK`; else nothing yet.
    private mutating func reportIdle() -> String {
        guard let wanted = idle else { return "" }
        let lines = changedLines(wanted)
        guard !lines.isEmpty else { return "" }
        idle = nil
        return lines + "OK\n"
    }

    /// `changed:` lines for the pending changes among `wanted` (all when empty), which are then no longer pending.
    private mutating func changedLines(_ wanted: Set<String>) -> String {
        let hits = wanted.isEmpty ? pending : pending.intersection(wanted)
        pending.subtract(hits)
        return hits.sorted().map { "changed: \($0)\n" }.joined()
    }
}
