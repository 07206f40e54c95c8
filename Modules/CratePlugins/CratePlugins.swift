import ALSAOutput
import AppleCatalogREST
public import CrateCore
public import CrateDomain
import HTTPFrontEnd
import MPDFrontEnd
import MPRISFrontEnd
import SubsonicFrontEnd
import FFmpegDecoder
import FFmpegEncoder
import FLACDecoder
import LocalFilesSource
import MP3Decoder
import NullOutput
import FIFOOutput
import StreamOutput
import OpusDecoder
import PipeOutput
import PulseAudioOutput
import URLStreamSource
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// The composition root: every plugin and front end this build of Crate ships, one line each. This is the only code
/// that imports concrete plugins and front ends; the apps hand the lists to Core at start-up. Adding a source,
/// decoder or output is one folder under Plugins/ (with its `registration`) and one line here; adding a front end is
/// one folder under Modules/FrontEnds/ and one line in `frontEnds` (see Docs/ARCHITECTURE.md).
public enum CratePlugins {
    /// The daemon's front ends, started in this order (and stopped in the reverse order).
    public static let frontEnds: [FrontEndRegistration] = [
        HTTPFrontEnd.registration,
        MPDFrontEnd.registration,
        MPRISFrontEnd.registration,
        SubsonicFrontEnd.registration,
    ]

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
        // Outputs for listeners elsewhere: Snapcast's pipe, and the Ogg Opus stream crated serves at /stream.opus.
        FIFOOutputPlugin.registration,
        StreamOutputPlugin.registration,
        // Encoders: transcoding for listeners elsewhere.
        FFmpegEncoderPlugin.registration,
    ], autoOutputOrder: ["pulse", "alsa", "null"], frontEndBlocks: frontEnds.map(\.settings))
}
