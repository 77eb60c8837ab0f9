import { ApiError, guardedFetch, OutboundError, type GuardedResponse } from '@platform/http';

export interface JsonApiResource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
}

const MEDIA_TYPE = 'application/vnd.api+json';
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 8 * 1024 * 1024;
const MAX_PAGES = 50;

const cmsError = (message: string, details?: unknown) => new ApiError(502, 'api_error', 'cms_unavailable', message, details);

/**
 * A JSON:API collection on a CMS (Drupal's JSON:API module, for one), read and written with a key.
 * The URL is the caller's, so every call goes through the platform's outbound guard (`guardedFetch`:
 * http(s) only, no private address unless `OUTBOUND_ALLOW_PRIVATE`, a timeout and a size cap).
 */
export class JsonApiCollection {
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    private readonly options: { allowPrivate: boolean } = { allowPrivate: false },
  ) {}

  private async request(url: string, init: { method: string; body?: unknown }): Promise<unknown> {
    let response: GuardedResponse;
    try {
      response = await guardedFetch(
        url,
        {
          method: init.method,
          headers: { Accept: MEDIA_TYPE, Authorization: `Bearer ${this.apiKey}`, ...(init.body !== undefined && { 'Content-Type': MEDIA_TYPE }) },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        },
        { timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, allowPrivate: this.options.allowPrivate, maxRedirects: 0 },
      );
    } catch (error) {
      // A URL the caller may not use stays a 400; a CMS that fails is a 502 naming it.
      if (error instanceof OutboundError && error.status === 400) throw error;
      throw cmsError(`The CMS at ${new URL(url).origin} could not be reached: ${(error as Error).message}`);
    }
    const text = response.text();
    if (response.status < 200 || response.status >= 300)
      throw cmsError(`The CMS answered ${init.method} ${new URL(url).pathname} with ${response.status}`, { status: response.status, body: text.slice(0, 500) });
    try {
      return text ? JSON.parse(text) : {};
    } catch {
      throw cmsError('The CMS did not answer with JSON');
    }
  }

  /** Every resource of the collection, following `links.next`. */
  async list(): Promise<JsonApiResource[]> {
    const resources: JsonApiResource[] = [];
    let next: string | undefined = this.url;
    for (let page = 0; next && page < MAX_PAGES; page += 1) {
      const body = (await this.request(next, { method: 'GET' })) as { data?: JsonApiResource[]; links?: { next?: string | { href?: string } } };
      if (!Array.isArray(body.data)) throw cmsError('The CMS answer has no JSON:API `data` array');
      resources.push(...body.data.filter((item) => item && typeof item.id === 'string' && typeof item.attributes === 'object'));
      const link = body.links?.next;
      next = typeof link === 'string' ? link : link?.href;
      if (next && !URL.canParse(next, this.url)) throw cmsError('The CMS answered with an invalid `links.next`');
      if (next) next = new URL(next, this.url).toString();
    }
    return resources;
  }

  async create(type: string, attributes: Record<string, unknown>): Promise<void> {
    await this.request(this.url, { method: 'POST', body: { data: { type, attributes } } });
  }

  async update(resource: JsonApiResource, attributes: Record<string, unknown>): Promise<void> {
    const url = `${this.url.replace(/\/$/, '')}/${encodeURIComponent(resource.id)}`;
    await this.request(url, { method: 'PATCH', body: { data: { type: resource.type, id: resource.id, attributes } } });
  }
}
