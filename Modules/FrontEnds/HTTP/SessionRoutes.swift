import CrateCore
import Foundation
import Hummingbird
import NIOCore

/// Signing in from a browser when the daemon has a token (`http.token`): `/login` asks for the token once and
/// `POST /api/v1/session` turns it into an HttpOnly, SameSite=Strict cookie, so page scripts never hold the token.
enum SessionRoutes {
    struct SignIn: Decodable { var token: String }
    struct State: ResponseEncodable { var tokenRequired: Bool }

    /// A year: signing in again is needed only when the token changes (the cookie is an HMAC of it).
    static let cookieMaxAge = 365 * 24 * 3600

    static func add(to router: Router<BasicRequestContext>, settings: HTTPSettings) {
        router.get("login") { _, _ in page(LoginPage.html, type: "text/html; charset=utf-8") }
        router.get("login.js") { _, _ in page(LoginPage.script, type: "text/javascript; charset=utf-8") }
        router.get("api/v1/session") { _, _ in State(tokenRequired: settings.token != nil) }
        router.post("api/v1/session") { request, context in
            let body = try await request.decode(as: SignIn.self, context: context)
            guard let value = settings.sessionValue else { return Response(status: .noContent) }
            guard settings.accepts(token: body.token) else {
                throw APIError(.unauthorized, code: "bad_token", "that is not this daemon's token (http.token)")
            }
            return Response(status: .noContent, headers: [.setCookie: cookie(value, maxAge: cookieMaxAge)])
        }
        router.delete("api/v1/session") { _, _ in
            Response(status: .noContent, headers: [.setCookie: cookie("", maxAge: 0)])
        }
    }

    static func cookie(_ value: String, maxAge: Int) -> String {
        "\(RequestGuard<BasicRequestContext>.sessionCookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }

    static func page(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The sign-in page: no inline script or style, so the strict Content-Security-Policy holds.
enum LoginPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Crate — sign in</title><link rel="icon" href="data:,"><script type="module" src="/login.js"></script></head>
        <body>
        <main>
        <h1>Crate</h1>
        <form id="login">
        <label for="token">This daemon's token (http.token)</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
        <button type="submit">Sign in</button>
        <p id="message" role="alert"></p>
        </form>
        </main>
        </body>
        </html>

        """

    static let script = """
        const form = document.getElementById("login");
        const message = document.getElementById("message");
        form.addEventListener("submit", async (event) => {
          event.preventDefault();
          message.textContent = "";
          const token = document.getElementById("token").value;
          const answer = await fetch("/api/v1/session", {
            method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token }),
          });
          if (answer.ok) { location.href = "/"; return; }
          const body = await answer.json().catch(() => null);
          message.textContent = body?.error?.message ?? `Sign-in failed (HTTP ${answer.status})`;
        });

        """
}
