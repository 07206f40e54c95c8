import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Small socket buffers for the connections that ask for a broadcast (`GET /stream.opus`). A listener that stops
/// reading is noticed when its bytes back up into the broadcast's own queue (Broadcast.lagLimit), and the kernel's send
/// buffer, which grows to megabytes on its own, would hide that for minutes at a stream's few kilobytes a second.
/// Every other connection keeps the kernel's buffers (artwork, downloads).
final class ListenerSockets: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    static let sendBuffer = 16 * 1024
    static let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 4 * 1024, high: 16 * 1024)

    let paths: Set<String>

    init(paths: Set<String>) { self.paths = paths }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), let path = head.path?.split(separator: "?").first,
           paths.contains(String(path)) {
            let channel = context.channel
            channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.sendBuffer)
                .and(channel.setOption(ChannelOptions.writeBufferWaterMark, value: Self.waterMark))
                .whenComplete { _ in }
        }
        context.fireChannelRead(data)
    }
}
