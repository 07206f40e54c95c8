/// How an import brings files into the library.
public enum ImportMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Files stay where they are; the library points at them.
    case reference
    /// Files are copied into Crate's managed library folder; originals are left alone.
    case copy
    /// As `copy`; then, with the user's permission, the original is deleted once the copy is
    /// verified by hash and committed. Without permission it behaves as `copy`.
    case copyThenDelete = "copy_then_delete"

    public static let `default` = ImportMode.copy

    /// Whether the library owns the file (and deletes it with the track).
    public var copiesFiles: Bool { self != .reference }
}
