import ArgumentParser
import CrateClient
import CrateCore
import CrateDomain

struct Plugins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plugins", abstract: "List every source, decoder and output plugin with its status.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let runtime = try await options.runtime()
        let plugins = runtime.pluginDescriptors()
        if json { return try printJSON(plugins) }
        print(pad("KIND", 8) + pad("NAME", 12) + pad("STATUS", 13) + "HANDLES / REASON")
        for p in plugins {
            let detail = p.available ? p.handles.joined(separator: " ") : (p.reason ?? "")
            print(pad(p.kind.rawValue, 8) + pad(p.name, 12) + pad(p.available ? "available" : "unavailable", 13) + detail)
        }
        // Which output `output.plugin` leads to here, and why (crated logs the same choice when it starts).
        do {
            let (plugin, why) = try runtime.outputs.resolve(runtime.settings.output)
            print("\nOutput: \(plugin.name) — \(why)")
        } catch {
            print("\nOutput: none — \(error)")
        }
        // The front ends are the daemon's: it says which serve, and why the others do not.
        guard let daemon = try await options.daemon() else {
            print("\nFront ends: crated is not running")
            return
        }
        print("\nFront ends (crated at \(daemon.address)):")
        for end in try await daemon.send("GET", "/api/v1/health", as: DaemonHealth.self).frontEnds ?? [] {
            print("  " + pad(end.name, 8) + pad(end.running ? "on" : "off", 5) + end.detail)
        }
    }
}

/// The part of `GET /api/v1/health` this command reads.
private struct DaemonHealth: Decodable {
    var frontEnds: [FrontEndStatus]?
}

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
}
