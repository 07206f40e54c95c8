public import AppleCatalogREST
public import CrateDomain
public import FLACDecoder
public import LocalFilesSource
public import MP3Decoder
public import NullOutput
public import OpusDecoder
public import PulseAudioOutput
public import VorbisDecoder
public import WAVDecoder
public import WAVFileOutput

/// The composition root: every plugin this build of Crate ships, one line each. This is the only code that
/// imports concrete plugins; the apps hand the list to Core at start-up. Adding a source, decoder or output is one
/// folder under Plugins/ (with its `registration`) and one line here (see Docs/ARCHITECTURE.md).
public enum CratePlugins {
    public static let list = PluginList([
        LocalFilesSource.registration,
        AppleCatalogSource.registration,
        // Decoders: registration order is the default priority.
        FLACDecoderPlugin.registration,
        VorbisDecoderPlugin.registration,
        OpusDecoderPlugin.registration,
        MP3DecoderPlugin.registration,
        WAVDecoderPlugin.registration,
        PulseAudioOutputPlugin.registration,
        WAVFileOutputPlugin.registration,
        NullOutputPlugin.registration,
    ], autoOutputOrder: ["pulse", "wav"])
}
