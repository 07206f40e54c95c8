public import CrateDomain
import CrateStorage
import Foundation
import Logging

/// Several outputs at once (`output.plugin: [pulse, stream]`): listed and switched on and off while playing, by any
/// client; the choice is kept in the library's settings table and survives restarts. A switch or an output's own
/// trouble is published as an `output` event.
extension PlayerService {
    static let disabledOutputsKey = "player.disabled_outputs"

    /// Every output the player has, in configuration order.
    public nonisolated func outputStates() -> [OutputState] { outputs.states() }

    /// Turns output `name` on or off while playing; the others go on. Answers the output as it is now.
    @discardableResult
    public func setOutput(_ name: String, enabled: Bool) throws -> OutputState {
        guard let state = outputs.setEnabled(name, enabled) else {
            throw PlayerError.noSuchOutput(name: name, known: outputs.names)
        }
        let disabled = outputs.states().filter { !$0.enabled }.map(\.name)
        do {
            try store.setSetting(Self.disabledOutputsKey, String(decoding: try JSONEncoder().encode(disabled), as: UTF8.self))
        } catch {
            logger.error("cannot save which outputs are off: \(ErrorText.describe(error))")
        }
        logger.notice("output '\(name)' switched \(enabled ? "on" : "off")")
        // Its listeners are told the stream is over (players stop) rather than kept on silence.
        if !enabled, let path = state.listenPath {
            for broadcast in broadcasts where broadcast.path == path { broadcast.finish("the \(name) output was switched off") }
        }
        // The player stopped for want of an output and one is switched on: try at once.
        if enabled, outputError != nil { retryOutputSoon() }
        return state
    }

    /// The outputs switched off when crated last ran (unknown names are ignored).
    static func disabledOutputs(_ store: LibraryStore) -> Set<String> {
        guard let text = try? store.setting(disabledOutputsKey),
              let names = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { return [] }
        return Set(names)
    }

    func outputChanged(_ state: OutputState) {
        if let error = state.error, state.enabled, outputs.names.count > 1 {
            logger.error("output '\(state.name)' failed: \(error); the other outputs go on")
        }
        publish(.output(state))
    }
}
