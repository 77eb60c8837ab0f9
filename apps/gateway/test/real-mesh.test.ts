import { listenLocally, spawnService, uniqueName, type ServiceProcess } from '@platform/testing';
import http from 'node:http';
import request from 'supertest';
import { Fakes } from './fakes';
import { manifest, startGateway, type Gateway } from './harness';

/**
 * Execute through a real mesh process: the gateway registers the agent, the mesh delivers the
 * task to the agent's HTTP endpoint, and the agent answers at the reply URL it was given.
 */
describe('execute through a real mesh process', () => {
  let g: Gateway;
  let mesh: ServiceProcess;
  let agent: http.Server;
  let agentUrl: string;
  const received: Array<Record<string, unknown>> = [];
  const gatewayKey = `gk_${uniqueName('gateway')}_secret`;
  const gatewaySub = uniqueName('gateway-service');
  beforeAll(async () => {
    agent = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const envelope = JSON.parse(body) as { payload: { reply_to: string; input: { text: string } } };
        received.push(envelope);
        res.writeHead(202).end();
        void fetch(envelope.payload.reply_to, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ output: { upper: envelope.payload.input.text.toUpperCase() } }),
        });
      });
    });
    agentUrl = `${await listenLocally(agent)}/tasks`;
    const fakes = await new Fakes().start();
    // The gateway's own key: it acts for users with tokens the (fake) auth delegates (RFC 8693).
    fakes.apiKeys.set(gatewayKey, { sub: gatewaySub, permissions: ['mesh:read', 'mesh:write', 'tokens:exchange'] });
    mesh = await spawnService('mesh', {
      env: {
        AUTH_URL: new URL(fakes.issuer.jwksUri).origin,
        AUTH_ISSUER: fakes.issuer.issuer,
        AUTH_AUDIENCE: fakes.issuer.audience,
        GRPC_PORT: '0',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        MESH_CLUSTER: uniqueName('gw'),
      },
      timeoutMs: 90_000,
    });
    g = await startGateway({ MESH_URL: mesh.url, GATEWAY_API_KEY: gatewayKey }, fakes);
  }, 120_000);
  afterAll(async () => {
    await mesh?.stop();
    await g?.stop();
    agent?.close();
  });

  it("registers the agent with the mesh and answers with the agent's reply", async () => {
    const owner = uniqueName('owner');
    const token = g.issuer.bearer(['agents:read', 'agents:write', 'agents:execute', 'mesh:read', 'mesh:write'], { sub: owner });
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', token)
      .send({ manifest: manifest(), deployment: { endpoint: agentUrl } });
    expect(created.status).toBe(201);
    const registered = await request(mesh.url).get('/api/v1/agents?limit=500').set('Authorization', token);
    // Registered by the gateway acting for the user (a delegated token): the mesh's agent is the user's.
    expect(registered.body.agents.find((item: { id: string }) => item.id === created.body.id)).toMatchObject({
      endpoint: agentUrl,
      capabilities: ['network-outbound', 'tool-execution'],
      owner,
    });
    expect(g.fakes.exchanges.filter((exchange) => exchange.subject === owner)).toEqual([{ subject: owner, actor: gatewaySub }]);

    const executed = await request(g.app)
      .post(`/api/v1/agents/${created.body.id}/execute`)
      .set('Authorization', token)
      .send({ input: { text: 'hello' }, timeout_ms: 60_000 });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ status: 'completed', output: { upper: 'HELLO' } });
    expect(received.at(-1)).toMatchObject({ from: 'gateway', payload: { type: 'task', execution_id: executed.body.executionId } });

    expect((await request(g.app).delete(`/api/v1/agents/${created.body.id}`).set('Authorization', token)).status).toBe(204);
    const after = await request(mesh.url).get('/api/v1/agents?limit=500').set('Authorization', token);
    expect(after.body.agents.find((item: { id: string }) => item.id === created.body.id)).toBeUndefined();
  }, 120_000);
});
