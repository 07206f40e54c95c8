import CrateDomain
import FLACDecoder
import LocalFilesSource
import MP3Decoder
import NullOutput
import OpusDecoder
import PulseAudioOutput
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// Every plugin Crate ships, registered here: adding a source, decoder or output is one folder
/// under Plugins/ and one line below.
public enum PluginCatalog {
    public static func sources() -> [any SourcePlugin] {
        [
            LocalFilesSource(),
        ]
    }

    /// Registration order is the default decoder priority.
    public static func decoders() -> [any DecoderPlugin] {
        [
            FLACDecoderPlugin(),
            VorbisDecoderPlugin(),
            OpusDecoderPlugin(),
            MP3DecoderPlugin(),
            WAVDecoderPlugin(),
        ]
    }

    public static func outputs(_ settings: Settings) -> [any OutputPlugin] {
        [
            PulseAudioOutputPlugin(server: settings.pulseServer, sink: settings.pulseSink),
            WAVFileOutputPlugin(path: settings.wavOutputPath),
            NullOutputPlugin(),
        ]
    }

    /// What `auto` tries, in order: speakers when a PulseAudio server answers, else a WAV file.
    public static let autoOutputOrder = ["pulse", "wav"]

    public static var sourceNames: [String] { sources().map(\.name) }
    public static var decoderNames: [String] { decoders().map(\.name) }
    public static var outputNames: [String] { ["pulse", "wav", "null"] }
}
