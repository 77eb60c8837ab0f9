import { ErrorBody, master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { caller, permission } from '../access';
import type { FederationService } from './federation.service';

export function federationRoutes(api: ApiRouter, federation: FederationService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/federation/nodes',
      summary: 'Federation peers with their state and last sync',
      tags: ['federation'],
      access: permission.federationRead,
      before: limit,
      responses: { 200: { description: 'The peers', schema: master.PeerList } },
      handler: () => federation.list(),
    })
    .route({
      method: 'post',
      path: '/federation/join',
      summary: 'Link another platform',
      description:
        "Checks the peer's health, fetches its JWKS and verifies the join token its operator issued (RS256, our audience, granting " +
        "agents:read), then mirrors the peer's public agent catalog (read-only, origin = the peer's URL) now and on a schedule. " +
        'Every call to the peer goes through the outbound guard.',
      tags: ['federation'],
      access: permission.federationAdmin,
      before: limit,
      body: master.JoinBody,
      responses: {
        201: { description: 'Joined', schema: master.Peer },
        400: { description: 'Invalid body, blocked URL or join token refused', schema: ErrorBody },
        409: { description: 'Already joined', schema: ErrorBody },
        502: { description: 'The peer failed a check', schema: ErrorBody },
      },
      handler: (req) => federation.join(caller(req), req.valid.body),
    });
}
