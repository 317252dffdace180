import Testing

/// Against python's `websockets` (pip install websockets); skipped when
/// it is not installed.
@Suite("WebSocket against python's websockets",
       .enabled(if: EchoServer.shouldRun(.python), "python's websockets is not installed (pip install websockets)"))
struct PythonInteropTests {
    @Test("echo of text and binary messages from 0 bytes to 16 MiB", arguments: [false, true])
    func echo(deflate: Bool) throws { try InteropScenarios.echo(.python, deflate: deflate) }

    @Test("fragmented messages both ways", arguments: [false, true])
    func fragmented(deflate: Bool) throws { try InteropScenarios.fragmented(.python, deflate: deflate, serverFragments: true) }

    @Test("pings get pongs", arguments: [false, true])
    func ping(deflate: Bool) throws { try InteropScenarios.ping(.python, deflate: deflate) }

    @Test("client-initiated close: 1000 both ways, publishers finish", arguments: [false, true])
    func clientClose(deflate: Bool) throws { try InteropScenarios.clientClose(.python, deflate: deflate) }

    @Test("server-initiated close: code 4001 and reason reported", arguments: [false, true])
    func serverClose(deflate: Bool) throws { try InteropScenarios.serverClose(.python, deflate: deflate) }

    @Test("abrupt TCP close: 1006", arguments: [false, true])
    func abruptClose(deflate: Bool) throws { try InteropScenarios.abruptClose(.python, deflate: deflate) }
}
