import ALSAOutput
import AppleCatalogREST
public import CrateDomain
import FFmpegDecoder
import FLACDecoder
import LocalFilesSource
import MP3Decoder
import NullOutput
import OpusDecoder
import PipeOutput
import PulseAudioOutput
import URLStreamSource
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// The composition root: every plugin this build of Crate ships, one line each. This is the only code that
/// imports concrete plugins; the apps hand the list to Core at start-up. Adding a source, decoder or output is one
/// folder under Plugins/ (with its `registration`) and one line here (see Docs/ARCHITECTURE.md).
public enum CratePlugins {
    public static let list = PluginList([
        LocalFilesSource.registration,
        AppleCatalogSource.registration,
        URLStreamSource.registration,
        // Decoders: registration order is the default priority.
        FLACDecoderPlugin.registration,
        VorbisDecoderPlugin.registration,
        OpusDecoderPlugin.registration,
        MP3DecoderPlugin.registration,
        WAVDecoderPlugin.registration,
        // Last: what the native decoders do not read (MP4/M4A AAC and ALAC, WavPack, APE, WMA).
        FFmpegDecoderPlugin.registration,
        PulseAudioOutputPlugin.registration,
        ALSAOutputPlugin.registration,
        PipeOutputPlugin.registration,
        WAVFileOutputPlugin.registration,
        NullOutputPlugin.registration,
    ], autoOutputOrder: ["pulse", "alsa", "null"])
}
