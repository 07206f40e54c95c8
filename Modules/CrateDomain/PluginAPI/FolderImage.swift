import Foundation

/// The folder-image rule: a folder's cover is `cover.*`, else `folder.*`, else `front.*` (jpg, jpeg or png,
/// any case). Used by the scanner and by the artwork repair, so both pick the same file.
public enum FolderImage {
    private static let stems = ["cover", "folder", "front"]
    private static let suffixes: Set<String> = ["jpg", "jpeg", "png"]

    /// 0 for `cover.*`, 1 for `folder.*`, 2 for `front.*`; nil for other names.
    public static func rank(_ name: String) -> Int? {
        let lower = name.lowercased()
        guard let dot = lower.lastIndex(of: "."), suffixes.contains(String(lower[lower.index(after: dot)...])) else { return nil }
        return stems.firstIndex(of: String(lower[..<dot]))
    }

    /// The best-ranked cover image among a folder's file names (ties: byte order of the names).
    public static func choose(_ names: [String]) -> String? {
        names.compactMap { name in rank(name).map { (name, $0) } }
            .min { a, b in a.1 != b.1 ? a.1 < b.1 : Array(a.0.utf8).lexicographicallyPrecedes(Array(b.0.utf8)) }?.0
    }

    /// The cover image file in `folder`, as an absolute path.
    public static func find(in folder: String) -> String? {
        guard let names = RawFileName.names(in: folder),
              let name = choose(names) else { return nil }
        return folder + "/" + name
    }
}
