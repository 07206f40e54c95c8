import AppleCatalogREST
import CrateDomain
import Foundation
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
    public static func sources(_ settings: Settings? = nil) -> [any SourcePlugin] {
        [
            LocalFilesSource(),
            AppleCatalogSource(config: catalogConfig(settings?.catalog ?? CatalogSettings())),
        ]
    }

    static func catalogConfig(_ c: CatalogSettings) -> AppleCatalogConfig {
        AppleCatalogConfig(teamID: c.teamID, keyID: c.keyID, keyPath: c.keyPath, developerToken: c.developerToken,
                           userToken: c.userToken, userTokenFile: c.userTokenFile, storefront: c.storefront,
                           baseURL: c.baseURL ?? AppleCatalogConfig.defaultBaseURL, requestsPerSecond: c.requestsPerSecond)
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
