public import CrateCore
import CrateDomain
import Logging
import ServiceLifecycle

/// The MPRIS front end (Docs/MPRIS.md): `org.mpris.MediaPlayer2.crate` on the session bus, unless `mpris.enabled` is
/// false. Without a session bus (a server, CI) it declines and says why.
public enum MPRISFrontEnd {
    public static let registration = FrontEndRegistration(
        name: "mpris",
        keys: [PluginSettingKey("enabled", default: "true",
                                help: "Own org.mpris.MediaPlayer2.crate on the session bus (media keys, playerctl)")],
        check: { block in _ = try enabled(block) },
        start: start)

    static func enabled(_ block: PluginSettings) throws -> Bool {
        let (value, problem) = block.bool("enabled", default: true)
        if problem != nil {
            throw ConfigError.invalidValue(key: block.key("enabled"), value: block.string("enabled") ?? "", accepted: "true or false")
        }
        return value
    }

    static func start(_ context: FrontEndContext) async throws -> FrontEndStart {
        guard try enabled(context.settings) else { return .off("mpris.enabled is false") }
        let bus: SessionBus
        do { bus = try SessionBus.connect(name: MPRISServer.busName) } catch { return .off("\(error)") }
        let runtime = context.runtime
        let mimeTypes = Array(Set(runtime.decoders.plugins.flatMap(\.mimeTypes))).sorted()
        let server = MPRISServer(bus: bus, player: context.player, collection: runtime.collection, library: runtime.library,
                                 mimeTypes: mimeTypes, logger: context.logger)
        let service = ClosureService {
            do {
                try await cancelWhenGracefulShutdown { try await server.serve() }
            } catch {
                context.logger.warning("mpris: stopped: \(ErrorText.describe(error))")
                context.report(running: false, "off: \(ErrorText.describe(error))")
            }
        }
        return .serving(service, where: "\(MPRISServer.busName) on the session bus")
    }
}
