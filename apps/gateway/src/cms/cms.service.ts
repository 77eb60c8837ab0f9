import type { JsonApiCmsClient, JsonApiResource } from '@platform/clients';
import type { gateway } from '@platform/contracts';
import { serviceUnavailable } from '@platform/http';
import type { TypedQueue } from '@platform/queues';
import type { z } from 'zod';
import { owned, rules } from '../access/ownership';
import type { Caller } from '../agents/agents.service';
import type { siteQueue } from './sites.queue';
import type { SitePage, SitesRepository } from './sites.repository';

type SiteRow = NonNullable<Awaited<ReturnType<SitesRepository['find']>>>;
const USERS = '/jsonapi/user/user';
const item = (resource: JsonApiResource) => ({ id: resource.id, type: resource.type, attributes: resource.attributes });
const page = <T>(items: T[], query: { limit: number; offset: number }) => ({
  items: items.slice(query.offset, query.offset + query.limit),
  total: items.length,
  limit: query.limit,
  offset: query.offset,
});

/**
 * Content, users and sites in the CMS through the platform's JSON:API client (Drupal's shape).
 * `POST /cms/sites` queues a job (`gateway.sites`) that creates each page in the CMS and records
 * its progress.
 */
export class CmsService {
  constructor(
    private readonly cms: JsonApiCmsClient | undefined,
    private readonly sites: SitesRepository,
    private readonly queue: TypedQueue<typeof siteQueue.payload>,
    private readonly basePath: string,
  ) {}

  private client(): JsonApiCmsClient {
    if (!this.cms) throw serviceUnavailable('cms is not configured (CMS_URL)', { service: 'cms' });
    return this.cms;
  }

  async createContent(body: z.infer<typeof gateway.CmsContentBody>) {
    const fields = {
      ...body.fields,
      title: body.title,
      status: body.status === 'published',
      ...(body.body && { body: { value: body.body, format: 'basic_html' } }),
    };
    return item(await this.client().createNode(body.type, fields));
  }

  async listContent(query: z.infer<typeof gateway.CmsContentQuery>) {
    const collection = `/jsonapi/node/${query.type}${query.status ? `?filter[status]=${query.status === 'published' ? 1 : 0}` : ''}`;
    return page((await this.client().list(collection)).map(item), query);
  }

  async createUser(body: z.infer<typeof gateway.CmsUserBody>) {
    return item(
      await this.client().create(USERS, 'user--user', {
        name: body.name,
        mail: body.mail,
        status: body.status,
        ...(body.roles.length > 0 && { roles: body.roles }),
      }),
    );
  }

  async listUsers(query: { limit: number; offset: number }) {
    return page((await this.client().list(USERS)).map(item), query);
  }

  private siteView(row: SiteRow) {
    const pages = row.pages as SitePage[];
    return {
      id: row.id,
      name: row.name,
      status: row.status as z.infer<typeof gateway.SiteJobStatus>,
      progress: { total: row.pagesTotal, done: row.pagesDone, percent: row.pagesTotal === 0 ? 100 : Math.round((row.pagesDone / row.pagesTotal) * 100) },
      pages: pages.map((entry) => ({ title: entry.title, path: entry.path, cmsId: entry.cmsId, status: entry.status })),
      error: row.error,
      owner: row.ownerSub,
      team: row.team,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      links: { self: `${this.basePath}/cms/sites/${row.id}` },
    };
  }

  async createSite(caller: Caller, body: z.infer<typeof gateway.CreateSiteBody>) {
    this.client();
    const { owner, team } = rules.site.ownerFor(caller, body.team);
    const pages = body.pages.map((spec) => ({ title: spec.title, path: spec.path ?? null, prompt: spec.prompt ?? null, cmsId: null, status: 'pending' }));
    const row = await this.sites.create({ ownerSub: owner, team, name: body.name, request: body, pages });
    await this.queue.add('build', { siteId: row.id }, { jobId: row.id });
    return this.siteView(row);
  }

  async getSite(caller: Caller, id: string) {
    return this.siteView(rules.site.readable(caller, owned(await this.sites.find(id)), id));
  }

  /** The job: creates every page not yet created (a retried job resumes), recording each. */
  async buildSite(siteId: string): Promise<void> {
    const row = await this.sites.find(siteId);
    if (!row || row.status === 'completed' || row.status === 'failed') return;
    const request = row.request as z.infer<typeof gateway.CreateSiteBody>;
    const pages = row.pages as SitePage[];
    await this.sites.update(siteId, { status: 'running' });
    for (const entry of pages) {
      if (entry.cmsId) continue;
      const text = [entry.prompt ?? `${entry.title}`, request.description].filter(Boolean).join('\n\n');
      const created = await this.client().createNode('page', {
        title: entry.title,
        status: true,
        body: { value: `<h1>${escapeHtml(entry.title)}</h1><p>${escapeHtml(text)}</p>`, format: 'basic_html' },
        ...(entry.path && { path: { alias: entry.path } }),
      });
      entry.cmsId = created.id;
      entry.status = 'created';
      await this.sites.update(siteId, { pages, pagesDone: pages.filter((candidate) => candidate.cmsId).length });
    }
    await this.sites.update(siteId, { status: 'completed', finishedAt: new Date() });
  }

  async failSite(siteId: string, error: string): Promise<void> {
    await this.sites.update(siteId, { status: 'failed', error, finishedAt: new Date() });
  }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
