import type { master } from '@platform/contracts';
import { ApiError, conflict, OutboundError } from '@platform/http';
import { validateManifest } from '@platform/manifest';
import type { Logger } from '@platform/telemetry';
import type { Caller } from '../access';
import { manifestFacts } from '../agents/manifest-facts';
import type { FederationRepository, MirroredAgent, PeerRow } from './federation.repository';
import type { PeerCalls } from './peer-calls';
import type { TokenBox } from './token-box';

const PAGE = 100;

function view(peer: PeerRow): master.Peer {
  return {
    id: peer.id,
    name: peer.name,
    url: peer.url,
    issuer: peer.issuer,
    state: peer.state as master.Peer['state'],
    lastSyncAt: peer.lastSyncAt?.toISOString() ?? null,
    lastError: peer.lastError,
    agentCount: peer.agentCount,
    tokenExpiresAt: peer.tokenExpiresAt?.toISOString() ?? null,
    joinedBy: peer.joinedBy,
    createdAt: peer.createdAt.toISOString(),
  };
}

/** Federation with other platforms: join after checking the peer, mirror its public catalog read-only. */
export class FederationService {
  constructor(
    private readonly repository: FederationRepository,
    private readonly calls: PeerCalls,
    private readonly box: TokenBox,
    private readonly options: { audience: string; maxAgents: number },
    private readonly logger: Logger,
  ) {}

  async list() {
    const peers = await this.repository.list();
    return { items: peers.map(view), total: peers.length };
  }

  /** Health, JWKS and the signed join token are checked before anything is stored; then a first sync. */
  async join(who: Caller, body: master.JoinBody): Promise<master.Peer> {
    const url = body.url.replace(/\/$/, '');
    if (await this.repository.findByNameOrUrl(body.name, url)) throw conflict(`A peer named ${body.name} or at ${url} has already joined`);
    const origin = new URL(url).origin;
    await this.calls.checkHealth(body.healthUrl ?? `${origin}/health`);
    const jwksUrl = body.jwksUrl ?? `${origin}/.well-known/jwks.json`;
    const keys = await this.calls.keys(jwksUrl);
    const claims = await this.calls.verifyJoinToken(body.token, keys, this.options.audience, body.issuer);
    let peer: PeerRow;
    try {
      peer = await this.repository.create({
        name: body.name,
        url,
        jwksUrl,
        issuer: claims.iss,
        token: this.box.seal(body.token),
        tokenExpiresAt: new Date(claims.exp * 1000),
        state: 'active',
        joinedBy: who.sub,
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw conflict(`A peer named ${body.name} or at ${url} has already joined`);
      throw error;
    }
    return view(await this.sync(peer));
  }

  /** Every peer, as the scheduled job does it. */
  async syncAll(): Promise<void> {
    for (const peer of await this.repository.list()) await this.sync(peer);
  }

  async syncPeer(id: string): Promise<void> {
    const peer = await this.repository.find(id);
    if (peer) await this.sync(peer);
  }

  /** Mirrors the peer's public catalog; a failure marks the peer and keeps the last mirror. */
  async sync(peer: PeerRow): Promise<PeerRow> {
    try {
      const token = this.box.open(peer.token);
      const agents: MirroredAgent[] = [];
      for (let offset = 0; offset < this.options.maxAgents; offset += PAGE) {
        const { status, page } = await this.calls.catalogPage(peer.url, token, offset, PAGE);
        if (status === 401 || status === 403) {
          await this.repository.syncFailed(peer, 'unauthorized', `the peer refused the join token (${status})`);
          return (await this.repository.find(peer.id)) ?? peer;
        }
        if (!page) throw new ApiError(502, 'api_error', 'upstream_error', `the peer's catalog answered ${status}`);
        for (const agent of page.items) {
          if (agent.origin !== 'local' || agent.visibility !== 'public') continue;
          const checked = validateManifest(agent.manifest);
          if (!checked.valid || !checked.manifest) continue;
          agents.push({ remoteId: agent.id, facts: manifestFacts(checked.manifest), manifest: agent.manifest });
        }
        if (offset + page.items.length >= page.total || page.items.length === 0) break;
      }
      await this.repository.replaceCatalog(peer, agents.slice(0, this.options.maxAgents));
    } catch (error) {
      const message = error instanceof OutboundError || error instanceof ApiError ? error.message : 'the catalog could not be read';
      this.logger.warn({ err: error, peer: peer.name }, 'federation sync failed');
      await this.repository.syncFailed(peer, 'unreachable', message);
    }
    return (await this.repository.find(peer.id)) ?? peer;
  }
}
