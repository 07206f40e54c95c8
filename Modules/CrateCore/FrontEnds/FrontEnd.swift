public import CrateDomain
public import ServiceLifecycle

/// A way into the daemon: the HTTP API and web page, the MPD protocol, MPRIS, and whatever comes next. Each is a
/// library target under Modules/FrontEnds that declares itself with one `FrontEndRegistration`; the composition root
/// lists the registrations, and crated runs what they start in one `ServiceGroup` (Docs/ARCHITECTURE.md).
///
/// A front end reads its own settings block, calls Core's services and subscribes to `runtime.events`; it never
/// writes the store or publishes an event itself (scripts/check-boundaries.sh holds that line).
public struct FrontEndRegistration: Sendable {
    /// Its name in `GET /api/v1/health` and `crate plugins`: `http`, `mpd`, `mpris`.
    public let name: String
    /// Its settings block, named as it is (`mpd` for `mpd.address` and `mpd.password`), read as plugins read theirs.
    public let settings: SettingsBlock
    /// The daemon cannot do without it (the HTTP API: the CLI's way in): when it fails, crated stops.
    public let essential: Bool
    private let checkSettings: @Sendable (PluginSettings) throws -> Void
    private let make: @Sendable (FrontEndContext) async throws -> FrontEndStart

    /// `check` refuses settings that cannot work, before the library is opened (crated then exits with EX_CONFIG);
    /// `start` binds what it serves and answers the service to run, or declines with the reason.
    public init(name: String, keys: [PluginSettingKey] = [], essential: Bool = false,
                check: @escaping @Sendable (PluginSettings) throws -> Void = { _ in },
                start: @escaping @Sendable (FrontEndContext) async throws -> FrontEndStart) {
        self.name = name
        settings = SettingsBlock(block: name, keys: keys)
        self.essential = essential
        checkSettings = check
        make = start
    }

    public func check(_ settings: Settings) throws { try checkSettings(settings.plugin(self.settings.block)) }

    func start(_ context: FrontEndContext) async throws -> FrontEndStart { try await make(context) }
}

/// What starting a front end gave: a service serving somewhere, or off and why.
public enum FrontEndStart: Sendable {
    /// `where` is what health and `crate plugins` show: `127.0.0.1:6600, a password is required`.
    case serving(any Service, where: String)
    case off(String)
}
