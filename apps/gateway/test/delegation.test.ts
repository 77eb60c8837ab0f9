import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { claimsOf, Fakes } from './fakes';
import { manifest, startGateway, type Gateway } from './harness';

/**
 * The publish saga and execute act for the user (RFC 8693): with a key of its own the gateway
 * exchanges the caller's token at auth for a delegated one (the user's `sub`, the gateway in
 * `act`) and calls registry, master, mesh and tracing with it, never with its own key.
 */
describe('delegated identity in the saga and execute', () => {
  let g: Gateway;
  const gatewayKey = `gk_${uniqueName('gateway')}_secret`;
  const gatewaySub = uniqueName('gateway-service');
  beforeAll(async () => {
    const fakes = await new Fakes().start();
    fakes.apiKeys.set(gatewayKey, { sub: gatewaySub, permissions: ['mesh:read', 'mesh:write', 'traces:write', 'tokens:exchange'] });
    g = await startGateway({ GATEWAY_API_KEY: gatewayKey }, fakes);
  });
  afterAll(() => g.stop());

  /** Who each call of `server` since `from` was made as: `sub` and the actor. */
  const callers = (calls: Array<{ authorization?: string }>) =>
    calls.map((call) => {
      const claims = claimsOf(call.authorization?.replace(/^Bearer /, ''));
      return { sub: claims?.sub, actor: (claims?.act as { sub?: string } | undefined)?.sub };
    });

  it('publishes, records, registers, traces, executes and deletes with a token delegated by the user', async () => {
    const user = uniqueName('alice');
    const token = g.issuer.bearer(['agents:read', 'agents:write', 'agents:execute'], { sub: user, teams: [{ id: 'blue', role: 'editor' }] });
    const before = { registry: g.fakes.registry.requests.length, master: g.fakes.master.requests.length, mesh: g.fakes.mesh.requests.length };
    const tracingBefore = g.fakes.tracing.requests.length;
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', token)
      .send({ manifest: manifest(), deployment: { endpoint: 'http://127.0.0.1:9/agent' } });
    expect(created.status).toBe(201);
    const executed = await request(g.app).post(`/api/v1/agents/${created.body.id}/execute`).set('Authorization', token).send({ input: 'hi' });
    expect(executed.status).toBe(200);
    expect((await request(g.app).delete(`/api/v1/agents/${created.body.id}`).set('Authorization', token)).status).toBe(204);

    const asUser = { sub: user, actor: gatewaySub };
    const registry = callers(g.fakes.registry.requests.slice(before.registry));
    const master = callers(g.fakes.master.requests.slice(before.master));
    const mesh = callers(g.fakes.mesh.requests.slice(before.mesh));
    const tracing = callers(g.fakes.tracing.requests.slice(tracingBefore).filter((call) => call.method === 'POST'));
    for (const [service, seen] of Object.entries({ registry, master, mesh, tracing })) {
      expect({ service, count: seen.length > 0 }).toEqual({ service, count: true });
      expect({ service, seen }).toEqual({ service, seen: seen.map(() => asUser) });
    }
    // The delegated token keeps the user's teams (ownership there follows the same rule).
    const registered = g.fakes.mesh.calls('POST', '/api/v1/agents').at(-1)!;
    expect(claimsOf(registered.authorization?.replace(/^Bearer /, ''))).toMatchObject({ sub: user, teams: [{ id: 'blue', role: 'editor' }] });
    // One exchange per user token (cached), made with the gateway's own token as the actor.
    expect(g.fakes.exchanges.filter((exchange) => exchange.subject === user)).toEqual([{ subject: user, actor: gatewaySub }]);
  });

  it('discovers as the caller: the mesh and mcp-registry list what the user may read, not what the gateway may', async () => {
    const user = uniqueName('carol');
    const before = { mesh: g.fakes.mesh.requests.length, mcp: g.fakes.mcpRegistry.requests.length };
    const found = await request(g.app)
      .get('/api/v1/registry/discover')
      .set('Authorization', g.issuer.bearer(['registry:read', 'mesh:read', 'mcp:read'], { sub: user }));
    expect(found.status).toBe(200);
    const asked = [...g.fakes.mesh.requests.slice(before.mesh), ...g.fakes.mcpRegistry.requests.slice(before.mcp)];
    expect(asked.length).toBe(2);
    expect(callers(asked)).toEqual([
      { sub: user, actor: gatewaySub },
      { sub: user, actor: gatewaySub },
    ]);
  });

  it('leaves nothing behind when auth refuses the exchange: 502 naming auth, no agent', async () => {
    g.fakes.auth.fail('POST', '^/api/v1/auth/token', 403);
    try {
      const body = manifest();
      const refused = await request(g.app)
        .post('/api/v1/agents')
        .set('Authorization', g.issuer.bearer(['agents:read', 'agents:write'], { sub: uniqueName('bob') }))
        .send({ manifest: body });
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatchObject({ code: 'upstream_error', details: { service: 'auth', status: 403 } });
      expect(g.fakes.registry.calls('POST', '/api/v1/agents').some((call) => (call.body as typeof body).metadata.name === body.metadata.name)).toBe(false);
      const listed = await request(g.app)
        .get('/api/v1/agents?limit=500')
        .set('Authorization', g.issuer.bearer(['agents:read', 'agents:admin']));
      expect(listed.body.items.some((agent: { name: string }) => agent.name === body.metadata.name)).toBe(false);
    } finally {
      g.fakes.auth.failures.clear();
    }
  });
});
