import CrateCore
import CrateDomain
import Foundation

/// The household's accounts as apps' admin screens list them (`getUsers`, admins only). Adding, changing and
/// removing accounts stays with `crate users`.
enum UserEndpoints {
    static let all: [String: SubsonicEndpoint] = [
        "getUsers": .admin { call in
            let users = try call.services.runtime.accounts.accounts().map(SystemEndpoints.userObject)
            return .payload(SubsonicObject { $0["users"] = SubsonicObject { $0["user"] = users } })
        },
    ]
}
