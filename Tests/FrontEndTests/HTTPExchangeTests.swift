import CrateClient
import CrateTestSupport
import Foundation
import HTTPTestSupport
import Hummingbird
import Testing

/// The CLI's HTTP client (CrateClient's `HTTPExchange`) against real sockets on 127.0.0.1: what it sends, how it reads
/// an answer whole or in parts, and how each way of failing is told.
@Suite(.promptly) struct HTTPExchangeTests {
    @Test func addressesAreReadAsTheDaemonWritesThem() {
        let v4 = HTTPExchange(address: "127.0.0.1:6680", target: "/")
        #expect(v4?.host == "127.0.0.1" && v4?.port == 6680)
        let v6 = HTTPExchange(address: "[::1]:6681", target: "/")
        #expect(v6?.host == "::1" && v6?.port == 6681)
        let name = HTTPExchange(address: "music.local:80", target: "/")
        #expect(name?.host == "music.local" && name?.port == 80)
        for bad in ["localhost", "[::1]", "::1", ":6680", "host:", "host:0", "host:70000", "[::1]6680", "host:port"] {
            #expect(HTTPExchange(address: bad, target: "/") == nil, "\(bad)")
        }
    }

    @Test func anAnswerIsReadWholeAndInParts() async throws {
        let router = Router()
        router.post("/echo") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers = HTTPFields()
            headers[.contentType] = request.headers[.contentType] ?? "none"
            let seen = "\(request.method.rawValue) \(request.uri) host=\(request.head.authority ?? "-") body=\(String(buffer: body))"
            return Response(status: .created, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: seen)))
        }
        // A body in many chunks (chunked transfer encoding): the parts arrive as the server writes them.
        router.get("/parts") { _, _ -> Response in
            Response(status: .ok, body: ResponseBody { writer in
                for n in 0..<50 { try await writer.write(ByteBuffer(string: "line \(n)\n")) }
                try await writer.finish(nil)
            })
        }
        router.get("/big") { _, _ in String(repeating: "x", count: 1000) }
        try await withLoopbackServer(router) { client in
            var echo = HTTPExchange(host: "127.0.0.1", port: client.port, method: "POST", target: "/echo?a=1%202",
                                    headers: [(name: "Content-Type", value: "application/json")], body: Array(#"{"k":1}"#.utf8))
            let answer = try await echo.fetch(limit: 1 << 20, timeout: .seconds(30))
            #expect(answer.status == 201 && answer.header("content-type") == "application/json")
            #expect(String(decoding: answer.body, as: UTF8.self) == "POST /echo?a=1%202 host=127.0.0.1:\(client.port) body={\"k\":1}")
            echo.body = nil
            echo.method = "GET"
            #expect(try await echo.fetch(limit: 1 << 20, timeout: .seconds(30)).status == 404)

            var status = 0, text = ""
            try await HTTPExchange(host: "127.0.0.1", port: client.port, target: "/parts").stream(timeout: .seconds(30)) { head in
                status = head.status
            } onBody: { part in
                text += String(decoding: part, as: UTF8.self)
            }
            #expect(status == 200 && text == (0..<50).map { "line \($0)\n" }.joined())

            let big = HTTPExchange(host: "127.0.0.1", port: client.port, target: "/big")
            #expect(try await big.fetch(limit: 1000, timeout: .seconds(30)).body.count == 1000)
            await #expect(throws: HTTPExchangeError.answerTooLarge(limit: 999)) {
                try await big.fetch(limit: 999, timeout: .seconds(30))
            }
        }
    }

    @Test func aRefusedConnectionFailsAtOnceInWords() async throws {
        let exchange = HTTPExchange(host: "127.0.0.1", port: try Fixture.freePort(), target: "/")
        await #expect(throws: HTTPExchangeError.connect(reason: "connection refused")) {
            try await exchange.fetch(limit: 100, timeout: .seconds(30))
        }
    }

    /// A server that takes the connection and never answers (the kernel accepts it into the listener's backlog).
    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let listener = try Fixture.silentListener()
        defer { close(listener.fd) }
        let exchange = HTTPExchange(host: "127.0.0.1", port: listener.port, target: "/")
        await #expect(throws: HTTPExchangeError.timedOut) {
            try await exchange.fetch(limit: 100, timeout: .milliseconds(200))
        }
    }
}
