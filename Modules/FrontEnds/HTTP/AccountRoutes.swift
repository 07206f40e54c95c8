import CrateAPI
import CrateCore
import CrateDomain
import Foundation
public import Hummingbird

/// The household's accounts under /api/v1/users (the Subsonic API signs in with them), behind the door's rules like
/// every route here: loopback or the token. Passwords come in bodies only and never go out.
enum AccountRoutes {
    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime) {
        let accounts = runtime.accounts
        api.get("users") { _, _ in try accounts.accounts() }
        api.post("users") { request, context in
            let body = try await request.decode(as: API.UserAdd.self, context: context)
            let account = try accounts.add(name: body.name, password: body.password, admin: body.admin, owner: body.owner,
                                           jukebox: body.jukebox)
            return EditedResponse(status: .created, response: account)
        }
        api.delete("users/:name") { _, context in
            try accounts.remove(name: try name(context))
            return Response(status: .noContent)
        }
        api.put("users/:name/password") { request, context in
            let body = try await request.decode(as: API.UserPassword.self, context: context)
            try accounts.setPassword(name: try name(context), password: body.password)
            return Response(status: .noContent)
        }
        api.post("users/:name/apikey") { _, context in
            API.APIKey(apiKey: try accounts.newAPIKey(name: try name(context)))
        }
    }

    private static func name(_ context: BasicRequestContext) throws -> String {
        guard let raw = context.parameters.get("name"), case let name = raw.removingPercentEncoding ?? raw, !name.isEmpty else {
            throw APIError(.badRequest, code: "bad_request", "the account name is missing")
        }
        return name
    }
}

extension Account: ResponseEncodable {}
extension API.APIKey: ResponseEncodable {}
