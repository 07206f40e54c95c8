public import CrateDomain
import Foundation

/// `outputs.wav.*` (formerly `output.wav.path`).
extension WAVFileOutputPlugin {
    public static let registration = PluginRegistration.output("wav", keys: [
        .init("path", formerly: ["output.wav.path"], default: "<data.directory>/output.wav", help: "the file written (default <data.directory>/output.wav; a format change writes output.2.wav, …)"),
    ]) { s in
        WAVFileOutputPlugin(path: s.path("path").map { URL(fileURLWithPath: $0) } ?? s.dataDirectory.appendingPathComponent("output.wav"))
    }
}
