import ArgumentParser
import CrateAPI
import CrateClient
import CrateDomain
import Foundation

/// `crate outputs`: the daemon's outputs, and switching them on and off while playing (as `mpc outputs`,
/// `mpc enable`, `mpc disable`).
struct Outputs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "List the daemon's outputs, or switch one on or off while playing.",
        subcommands: [OutputList.self, OutputEnable.self, OutputDisable.self, OutputToggle.self], defaultSubcommand: OutputList.self)
}

struct OutputList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the outputs: on or off, where the sound goes, any trouble.")
    @OptionGroup var options: DaemonOptions
    func run() async throws {
        let outputs = try await options.runningClient().send("GET", "outputs", as: [OutputState].self)
        if options.json { return try printJSON(outputs) }
        print(describe(outputs))
    }
}

/// One line per output: `pulse   on   PulseAudio (default sink)`, with its trouble or stream path after.
func describe(_ outputs: [OutputState]) -> String {
    let width = outputs.map(\.name.count).max() ?? 0
    return outputs.map { o in
        var line = o.name.padding(toLength: width, withPad: " ", startingAt: 0) + (o.enabled ? "  on " : "  off")
        if let path = o.listenPath { line += "  listen at \(path)" } else if let destination = o.destination { line += "  \(destination)" }
        if let error = o.error, o.enabled { line += "  — not working: \(error)" }
        return line
    }.joined(separator: "\n")
}

private protocol OutputSwitchCommand: AsyncParsableCommand {
    var options: DaemonOptions { get }
    var name: String { get }
    func wanted(_ current: OutputState) -> Bool
}

extension OutputSwitchCommand {
    func run() async throws {
        let client = try await options.runningClient()
        let outputs = try await client.send("GET", "outputs", as: [OutputState].self)
        guard let current = outputs.first(where: { $0.name == name }) else {
            throw ValidationError("no output named '\(name)'; the outputs are \(outputs.map(\.name).joined(separator: ", "))")
        }
        let state = try await client.send("POST", "outputs/\(name)", API.OutputSwitch(enabled: wanted(current)), as: OutputState.self)
        if options.json { return try printJSON(state) }
        print(describe([state]))
    }
}

struct OutputEnable: OutputSwitchCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Switch an output on.")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "The output's name, as `crate outputs` lists it.") var name: String
    func wanted(_ current: OutputState) -> Bool { true }
}

struct OutputDisable: OutputSwitchCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Switch an output off (the others play on).")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "The output's name, as `crate outputs` lists it.") var name: String
    func wanted(_ current: OutputState) -> Bool { false }
}

struct OutputToggle: OutputSwitchCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Switch an output on if off, off if on.")
    @OptionGroup var options: DaemonOptions
    @Argument(help: "The output's name, as `crate outputs` lists it.") var name: String
    func wanted(_ current: OutputState) -> Bool { !current.enabled }
}
