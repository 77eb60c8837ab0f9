// The local server of bench:workers' no-op http steps, in its own process so that the engine's
// process spends nothing on it. Answers every request at once with {"ok":true}; per step (the
// `run:step` of its Idempotency-Key) it keeps when the request arrived and when the answer was
// sent, in epoch ms, which GET /__times returns. Started with fork(); sends {port} once listening.
import http from 'node:http';

const arrived = {};
const answered = {};
const now = () => performance.timeOrigin + performance.now();

const server = http.createServer((req, res) => {
  if (req.url === '/__times') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ arrived, answered }));
    return;
  }
  const key = String(req.headers['idempotency-key']).split(':').slice(0, 2).join(':');
  arrived[key] = now();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}', () => (answered[key] = now()));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
