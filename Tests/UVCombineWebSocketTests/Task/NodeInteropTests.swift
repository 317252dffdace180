import Testing

/// Against node's `ws` (Debian's node-ws); skipped when
/// it is not installed.
@Suite("WebSocket against node's ws",
       .enabled(if: EchoServer.shouldRun(.node), "node's ws is not installed (apt-get install node-ws)"))
struct NodeInteropTests {
    @Test("echo of text and binary messages from 0 bytes to 16 MiB", arguments: [false, true])
    func echo(deflate: Bool) throws { try InteropScenarios.echo(.node, deflate: deflate) }

    @Test("messages sent in 1000-byte fragments come back whole", arguments: [false, true])
    func fragmented(deflate: Bool) throws { try InteropScenarios.fragmented(.node, deflate: deflate, serverFragments: false) }

    @Test("pings get pongs", arguments: [false, true])
    func ping(deflate: Bool) throws { try InteropScenarios.ping(.node, deflate: deflate) }

    @Test("client-initiated close: 1000 both ways, publishers finish", arguments: [false, true])
    func clientClose(deflate: Bool) throws { try InteropScenarios.clientClose(.node, deflate: deflate) }

    @Test("server-initiated close: code 4001 and reason reported", arguments: [false, true])
    func serverClose(deflate: Bool) throws { try InteropScenarios.serverClose(.node, deflate: deflate) }

    @Test("abrupt TCP close: 1006", arguments: [false, true])
    func abruptClose(deflate: Bool) throws { try InteropScenarios.abruptClose(.node, deflate: deflate) }
}
