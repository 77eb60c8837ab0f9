import { z } from 'zod';
import { guardedTransport, ServiceClient, UpstreamError, type ClientOptions } from './service-client';

export const JSON_API_MEDIA_TYPE = 'application/vnd.api+json';

export const JsonApiResource = z
  .object({
    type: z.string(),
    id: z.string(),
    attributes: z.record(z.string(), z.unknown()).default({}),
    links: z
      .object({ self: z.union([z.string(), z.object({ href: z.string() })]).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type JsonApiResource = z.infer<typeof JsonApiResource>;

const Document = z.object({ data: JsonApiResource }).loose();
const Collection = z
  .object({
    data: z.array(z.unknown()),
    links: z
      .object({ next: z.union([z.string(), z.object({ href: z.string() })]).optional() })
      .loose()
      .optional(),
  })
  .loose();
const OAuthToken = z.object({ access_token: z.string(), token_type: z.string().optional(), expires_in: z.number().optional() }).loose();

export interface CmsOptions extends Omit<ClientOptions, 'service' | 'transport'> {
  /** Loopback and private addresses (tests, an operator's in-cluster CMS). */
  allowPrivate?: boolean;
  /** Most pages `list` follows (default 50). */
  maxPages?: number;
}

type Call = { bearer?: string; signal?: AbortSignal };

/**
 * A CMS over JSON:API in Drupal's shape: nodes at `/jsonapi/node/<bundle>`, typed
 * `node--<bundle>`, numbered by `drupal_internal__nid`; users log in at `/oauth/token` (Simple
 * OAuth's password grant). Every call goes through the outbound guard: a CMS URL is user-supplied.
 */
export class JsonApiCmsClient {
  readonly http: ServiceClient;

  constructor(private readonly options: CmsOptions) {
    this.http = new ServiceClient({
      service: 'cms',
      ...options,
      headers: { Accept: JSON_API_MEDIA_TYPE, ...options.headers },
      transport: guardedTransport({ allowPrivate: options.allowPrivate }),
    });
  }

  /** Every resource of a collection URL (absolute or relative to the base), following `links.next`. */
  async list(collection: string, call: Call = {}): Promise<JsonApiResource[]> {
    const resources: JsonApiResource[] = [];
    let next: string | undefined = this.http.url(collection);
    for (let page = 0; next && page < (this.options.maxPages ?? 50); page += 1) {
      const body: z.infer<typeof Collection> = await this.http.request('GET', next, { ...call, schema: Collection });
      for (const item of body.data) {
        const parsed = JsonApiResource.safeParse(item);
        if (parsed.success) resources.push(parsed.data);
      }
      const link = body.links?.next;
      next = typeof link === 'string' ? link : link?.href;
      if (next && !URL.canParse(next, this.http.baseUrl)) throw new UpstreamError('cms', 'The CMS answered with an invalid `links.next`', 'invalid_response');
      if (next) next = new URL(next, this.http.url(collection)).toString();
    }
    return resources;
  }

  /** Creates a resource in a collection: `POST <collection> {data: {type, attributes}}`. */
  async create(collection: string, type: string, attributes: Record<string, unknown>, call: Call = {}): Promise<JsonApiResource> {
    const answer = await this.http.request('POST', collection, {
      ...call,
      body: { data: { type, attributes } },
      contentType: JSON_API_MEDIA_TYPE,
      schema: Document,
    });
    return answer.data;
  }

  async get(collection: string, id: string, call: Call = {}): Promise<JsonApiResource> {
    return (await this.http.request('GET', `${collection.replace(/\/$/, '')}/${encodeURIComponent(id)}`, { ...call, schema: Document })).data;
  }

  /** `PATCH <collection>/<id>` with the attributes to change. */
  async update(collection: string, resource: { type: string; id: string }, attributes: Record<string, unknown>, call: Call = {}): Promise<JsonApiResource> {
    const answer = await this.http.request('PATCH', `${collection.replace(/\/$/, '')}/${encodeURIComponent(resource.id)}`, {
      ...call,
      body: { data: { type: resource.type, id: resource.id, attributes } },
      contentType: JSON_API_MEDIA_TYPE,
      schema: Document,
      idempotent: true,
    });
    return answer.data;
  }

  // Drupal's node collections.
  static nodeCollection(bundle: string): string {
    return `/jsonapi/node/${encodeURIComponent(bundle)}`;
  }

  createNode(bundle: string, fields: Record<string, unknown>, call: Call = {}): Promise<JsonApiResource> {
    return this.create(JsonApiCmsClient.nodeCollection(bundle), `node--${bundle}`, fields, call);
  }

  /** A node by its uuid, or by its number (`drupal_internal__nid`) through a filter. */
  async loadNode(bundle: string, nid: string | number, call: Call = {}): Promise<JsonApiResource> {
    const collection = JsonApiCmsClient.nodeCollection(bundle);
    if (typeof nid === 'string' && !/^\d+$/.test(nid)) return this.get(collection, nid, call);
    const body: z.infer<typeof Collection> = await this.http.request('GET', collection, {
      ...call,
      query: { 'filter[drupal_internal__nid]': String(nid) },
      schema: Collection,
    });
    const found = body.data.map((item) => JsonApiResource.safeParse(item)).find((item) => item.success);
    if (!found?.success) throw new UpstreamError('cms', `The CMS has no ${bundle} node ${nid}`, 'status', 404);
    return found.data;
  }

  async updateNode(bundle: string, nid: string | number, fields: Record<string, unknown>, call: Call = {}): Promise<JsonApiResource> {
    const node = await this.loadNode(bundle, nid, call);
    return this.update(JsonApiCmsClient.nodeCollection(bundle), node, fields, call);
  }

  /** A user's access token: the OAuth password grant at `/oauth/token` (form-encoded). */
  async login(username: string, password: string, clientId: string, clientSecret?: string, call: Call = {}): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'password', username, password, client_id: clientId, ...(clientSecret && { client_secret: clientSecret }) });
    const answer = await this.http.request('POST', '/oauth/token', {
      ...call,
      body: form.toString(),
      contentType: 'application/x-www-form-urlencoded',
      headers: { Accept: 'application/json' },
      schema: OAuthToken,
    });
    return answer.access_token;
  }
}
