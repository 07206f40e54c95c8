import Foundation

/// The Music-User-Token for `/v1/me/…`: from the settings, or read once from a file (trimmed, since
/// such files usually end with a newline). A problem with the file is kept for `authCheck` to report;
/// catalog calls work without the token.
struct UserToken: Sendable {
    var token: String?
    var problem: String?

    init(config: AppleCatalogConfig) {
        if let value = config.userToken?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            token = value
            return
        }
        guard let path = config.userTokenFile else { return }
        guard FileManager.default.fileExists(atPath: path) else {
            problem = "sources.applecatalog.user_token_file \(path) does not exist"
            return
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            problem = "sources.applecatalog.user_token_file \(path) cannot be read"
            return
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if value.isEmpty {
            problem = "sources.applecatalog.user_token_file \(path) is empty"
        } else {
            token = value
        }
    }
}
