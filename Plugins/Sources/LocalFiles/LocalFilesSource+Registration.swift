public import CrateDomain

extension LocalFilesSource {
    /// No settings of its own: the folders come from imports and the import folder (`import.*`).
    public static let registration = PluginRegistration.source("localfiles") { _ in LocalFilesSource() }
}
