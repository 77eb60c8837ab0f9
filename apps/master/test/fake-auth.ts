import type { TestIssuer } from '@platform/testing';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { claimsOf } from './fake-workers';

/**
 * A small stand-in for auth's two endpoints a service with a key of its own calls: `POST
 * /api/v1/auth/api-key` (the service's own token, signed by the test's issuer) and RFC 8693 token
 * exchange at `POST /api/v1/auth/token` (a token of the subject, its teams and permissions, with the
 * actor in `act`; the actor needs `tokens:exchange`). Tokens are read, not verified: only the
 * test's issuer signs them. apps/auth's own tests run the real exchange.
 */
export async function startFakeAuth(issuer: TestIssuer, service: { apiKey: string; sub: string; permissions: string[] }) {
  const exchanges: Array<{ subject: string; actor: string }> = [];
  let refuse: number | undefined;
  const app = express();
  app.use(express.json());
  app.post('/api/v1/auth/api-key', (req, res) => {
    if (req.body.api_key !== service.apiKey)
      return void res.status(401).json({ error: { type: 'authentication_error', code: 'invalid_api_key', message: 'no' } });
    res.json({
      access_token: issuer.token({ sub: service.sub, permissions: service.permissions }),
      token_type: 'Bearer',
      expires_in: 900,
      service: 'master',
      permissions: service.permissions,
    });
  });
  app.post('/api/v1/auth/token', (req, res) => {
    if (refuse) return void res.status(refuse).json({ error: 'invalid_grant', error_description: 'refused by the test' });
    const actor = claimsOf(req.headers.authorization);
    const subject = claimsOf(`Bearer ${req.body.subject_token}`);
    if (!actor.permissions?.includes('tokens:exchange')) {
      return void res.status(403).json({ error: { type: 'authorization_error', code: 'insufficient_permissions', message: 'tokens:exchange' } });
    }
    exchanges.push({ subject: subject.sub!, actor: actor.sub! });
    const token = issuer.token({
      sub: subject.sub,
      permissions: subject.permissions,
      ...(subject.teams && { teams: subject.teams }),
      act: { sub: actor.sub!, client_id: 'master' },
    });
    res.json({ access_token: token, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 900 });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    /** Answers every exchange with this status until given `undefined`. */
    refuse(status: number | undefined) {
      refuse = status;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
