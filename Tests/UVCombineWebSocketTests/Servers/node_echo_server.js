// An echo server on node's `ws` (Debian's node-ws; NODE_PATH=/usr/share/nodejs),
// for UVCombineWebSocketTests. Usage: node node_echo_server.js deflate|plain.
// Prints "listening on port N " once it listens on 127.0.0.1.
//
// Paths: /echo echoes; /close/CODE echoes the first message then closes
// with CODE, "server says bye"; /drop echoes the first message then
// destroys the socket without a close frame.
const { WebSocketServer } = require('ws');

const server = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  perMessageDeflate: process.argv[2] === 'deflate',
  maxPayload: 64 * 1024 * 1024,
});
server.on('listening', () => console.log(`listening on port ${server.address().port} `));
server.on('connection', (ws, request) => {
  const path = request.url;
  ws.on('message', (data, isBinary) => {
    ws.send(data, { binary: isBinary });
    if (path.startsWith('/close/')) {
      ws.close(Number(path.split('/')[2]), 'server says bye');
    } else if (path === '/drop') {
      ws.terminate();
    }
  });
});
