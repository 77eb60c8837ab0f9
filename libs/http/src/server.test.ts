import express from 'express';
import type { AddressInfo } from 'node:net';
import { createAppServer } from './server';

describe('createAppServer', () => {
  it("serves the app with requests and responses born with the app's prototypes, Express's API intact", async () => {
    const app = express();
    app.use(express.json());
    app.post('/echo/:id', (req, res) => {
      res.status(201).json({
        id: req.params.id,
        body: req.body,
        ip: req.ip,
        agent: req.get('user-agent'),
        bornWithPrototypes: Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
      });
    });
    const server = createAppServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/echo/7`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'test' },
        body: JSON.stringify({ size: 2 }),
      });
      expect(answer.status).toBe(201);
      expect(await answer.json()).toEqual({ id: '7', body: { size: 2 }, ip: '127.0.0.1', agent: 'test', bornWithPrototypes: true });
    } finally {
      server.close();
    }
  });

  it('gives a second server of the same app the same classes', () => {
    const app = express();
    const first = createAppServer(app);
    const request = app.request;
    createAppServer(app);
    expect(app.request).toBe(request);
    first.close();
  });
});
