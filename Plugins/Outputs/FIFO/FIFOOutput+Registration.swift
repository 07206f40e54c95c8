public import CrateDomain
import Foundation

/// `outputs.fifo.*`.
extension FIFOOutputPlugin {
    public static let registration = PluginRegistration.output("fifo", keys: [
        .init("path", default: FIFOOutputPlugin.defaultPath,
              help: "the named pipe written (made if missing); Snapcast's default, so a stock snapserver.conf "
                + "(`source = pipe:///tmp/snapfifo?name=default`) reads it"),
        .init("format", default: FIFOFormat.snapcastDefault.description,
              help: "rate:bits:channels of the raw PCM written, whatever the music's own format: bits 16, 24 (in 4 bytes) "
                + "or 32, channels 1 or 2, little-endian; must match snapserver's sampleformat"),
    ]) { s in
        let path = s.path("path") ?? FIFOOutputPlugin.defaultPath
        let text = s.string("format") ?? FIFOFormat.snapcastDefault.description
        guard let format = FIFOFormat(text) else {
            return FIFOOutputPlugin(path: path, problem: s.problem("format", text, accepted: FIFOFormat.accepted))
        }
        return FIFOOutputPlugin(path: path, format: format)
    }
}
