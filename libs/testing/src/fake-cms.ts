import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from './local-server';

export interface FakeCmsNode {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
}

export interface FakeCmsOptions {
  /** Bearer tokens the CMS accepts for JSON:API calls (user tokens from /oauth/token are added). */
  apiKeys?: string[];
  /** Users who may log in with the password grant. */
  users?: Record<string, string>;
  /** Page size of collections (links.next beyond it). */
  pageSize?: number;
}

/**
 * A small CMS speaking Drupal's JSON:API shape, started inside a test: node collections at
 * `/jsonapi/node/<bundle>` (create, list with `links.next` paging and `filter[drupal_internal__nid]`,
 * get, patch), `/oauth/token` (password grant), bearer tokens checked, and every request recorded.
 */
export class FakeCms {
  readonly nodes = new Map<string, FakeCmsNode & { bundle: string }>();
  readonly requests: Array<{ method: string; path: string; authorization?: string; body?: unknown }> = [];
  private readonly tokens: Set<string>;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  private nextNid = 1;
  /** Answer every JSON:API call with this status instead (a CMS that is down). */
  failWith?: number;
  url = '';

  constructor(private readonly options: FakeCmsOptions = {}) {
    this.tokens = new Set(options.apiKeys ?? ['cms-test-key']);
  }

  async start(): Promise<this> {
    this.url = await listenLocally(this.server);
    return this;
  }

  stop(): Promise<void> {
    return closeLocally(this.server);
  }

  /** Adds a node directly (fixtures). */
  seed(bundle: string, attributes: Record<string, unknown>): FakeCmsNode {
    const node = { bundle, type: `node--${bundle}`, id: randomUUID(), attributes: { ...attributes, drupal_internal__nid: this.nextNid++ } };
    this.nodes.set(node.id, node);
    return { type: node.type, id: node.id, attributes: node.attributes };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw && req.headers['content-type']?.includes('json') ? JSON.parse(raw) : raw || undefined;
    } catch {
      return this.send(res, 400, { errors: [{ status: '400', title: 'Bad Request', detail: 'Invalid JSON' }] });
    }
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization, body });

    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      const form = new URLSearchParams(raw);
      const users = this.options.users ?? {};
      if (form.get('grant_type') !== 'password' || !form.get('client_id')) return this.send(res, 400, { error: 'invalid_request' }, 'application/json');
      if (users[form.get('username') ?? ''] === undefined || users[form.get('username') ?? ''] !== form.get('password'))
        return this.send(res, 400, { error: 'invalid_grant', error_description: 'The user credentials were incorrect.' }, 'application/json');
      const token = `user-${randomUUID()}`;
      this.tokens.add(token);
      return this.send(res, 200, { token_type: 'Bearer', expires_in: 300, access_token: token }, 'application/json');
    }

    const match = /^\/jsonapi\/node\/([a-z0-9_]+)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match) return this.send(res, 404, { errors: [{ status: '404', title: 'Not Found' }] });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) return this.send(res, 401, { errors: [{ status: '401', title: 'Unauthorized' }] });
    if (this.failWith) return this.send(res, this.failWith, { errors: [{ status: String(this.failWith), title: 'Failure' }] });
    const [, bundle, id] = match;
    const view = (node: FakeCmsNode & { bundle: string }) => ({
      type: node.type,
      id: node.id,
      attributes: node.attributes,
      links: { self: { href: `${this.url}/jsonapi/node/${bundle}/${node.id}` } },
    });

    if (!id && req.method === 'GET') {
      const filter = url.searchParams.get('filter[drupal_internal__nid]');
      const all = [...this.nodes.values()].filter(
        (node) => node.bundle === bundle && (filter === null || String(node.attributes.drupal_internal__nid) === filter),
      );
      const size = this.options.pageSize ?? 50;
      const offset = Number(url.searchParams.get('page[offset]') ?? 0);
      const page = all.slice(offset, offset + size);
      const links =
        offset + size < all.length ? { next: { href: `${this.url}/jsonapi/node/${bundle}?page[offset]=${offset + size}&page[limit]=${size}` } } : {};
      return this.send(res, 200, { data: page.map(view), links });
    }
    if (!id && req.method === 'POST') {
      const data = (body as { data?: { type?: string; attributes?: Record<string, unknown> } })?.data;
      if (!data || data.type !== `node--${bundle}` || typeof data.attributes !== 'object')
        return this.send(res, 422, { errors: [{ status: '422', title: 'Unprocessable Entity', detail: `data.type must be node--${bundle}` }] });
      const node = { bundle, type: `node--${bundle}`, id: randomUUID(), attributes: { ...data.attributes, drupal_internal__nid: this.nextNid++ } };
      this.nodes.set(node.id, node);
      return this.send(res, 201, { data: view(node) });
    }
    const node = id ? this.nodes.get(id) : undefined;
    if (!node || node.bundle !== bundle) return this.send(res, 404, { errors: [{ status: '404', title: 'Not Found' }] });
    if (req.method === 'GET') return this.send(res, 200, { data: view(node) });
    if (req.method === 'PATCH') {
      const data = (body as { data?: { id?: string; attributes?: Record<string, unknown> } })?.data;
      if (!data || data.id !== node.id)
        return this.send(res, 422, { errors: [{ status: '422', title: 'Unprocessable Entity', detail: 'data.id must match' }] });
      Object.assign(node.attributes, data.attributes ?? {});
      return this.send(res, 200, { data: view(node) });
    }
    return this.send(res, 405, { errors: [{ status: '405', title: 'Method Not Allowed' }] });
  }

  private send(res: ServerResponse, status: number, body: unknown, type = 'application/vnd.api+json'): void {
    res.writeHead(status, { 'Content-Type': type });
    res.end(JSON.stringify(body));
  }
}
