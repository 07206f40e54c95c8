import CrateClient
import CrateDomain
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

    /// A server that has the whole request with its head (a GET) may answer and close before the client has written
    /// the request's end: the answer is read all the same, every time. (Written part by part, the end's write failed
    /// with "I/O on closed channel": `crate status` against such a server on a loaded machine, 4 of 600 runs, and
    /// twice in fresh-clone CI runs as "crated is not running". In one warm process the gap between the writes is too
    /// short to lose here — 0 of 2,000 requests either way — so this holds the contract, not that race.)
    @Test func aServerThatAnswersOnTheHeadAndClosesIsReadEveryTime() async throws {
        let listener = try Fixture.silentListener()
        defer { close(listener.fd) }
        let rounds = 400
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
        WorkerThread.start(name: "answers-at-once") {
            var buffer = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<rounds {
                let fd = accept(listener.fd, nil, nil)
                guard fd >= 0 else { return }
                var seen: [UInt8] = []
                while !seen.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                    let n = read(fd, &buffer, buffer.count)
                    if n <= 0 { break }
                    seen += buffer[0..<n]
                }
                _ = response.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        }
        // The server thread leaves its accept when the listener shuts down (a failed run must not leave it waiting).
        defer { shutdown(listener.fd, Int32(SHUT_RDWR)) }
        // Two requests at a time: more than the listener's backlog of 4 waiting for one accepting thread lost SYNs on
        // a loaded machine, and the kernel's retry after a second failed them as connect timeouts (a CI run at 8beb17a).
        let failures = await withTaskGroup(of: String?.self) { group in
            var failures: [String] = []
            for round in 0..<rounds {
                if round >= 2, let failure = await group.next() { failures += failure.map { [$0] } ?? [] }
                group.addTask {
                    do {
                        let answer = try await HTTPExchange(host: "127.0.0.1", port: listener.port, target: "/")
                            .fetch(limit: 100, timeout: .seconds(30))
                        return answer.status == 200 && answer.body == Array("ok".utf8) ? nil : "HTTP \(answer.status)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            for await failure in group { failures += failure.map { [$0] } ?? [] }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.count) of \(rounds) requests failed, e.g. \(failures.prefix(3))")
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
