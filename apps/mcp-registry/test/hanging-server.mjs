// An MCP "server" that reads its input and never answers: the handshake must time out.
process.stdin.resume();
setInterval(() => {}, 1 << 30);
