import { ErrorBody, gateway } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller } from '../access/caller';
import type { CmsService } from './cms.service';

const tags = ['cms'];
const read = { permission: 'cms:read' };
const write = { permission: 'cms:write' };
const common = {
  401: { description: 'No valid token or API key', schema: ErrorBody },
  403: { description: 'Lacking the permission', schema: ErrorBody },
  429: { description: 'Rate limited', schema: ErrorBody },
  502: { description: 'The CMS failed (details.service = cms)', schema: ErrorBody },
  503: { description: 'No CMS configured', schema: ErrorBody },
};

export function cmsRoutes(api: ApiRouter, cms: CmsService): void {
  api
    .route({
      method: 'post',
      path: '/cms/content',
      summary: 'Create content (a node of a content type) in the CMS',
      tags,
      access: write,
      body: gateway.CmsContentBody,
      responses: { 201: { description: 'Created', schema: gateway.CmsItem }, 400: { description: 'Invalid body', schema: ErrorBody }, ...common },
      handler: (req) => cms.createContent(req.valid.body),
    })
    .route({
      method: 'get',
      path: '/cms/content',
      summary: 'Content of a type, optionally by status',
      tags,
      access: read,
      query: gateway.CmsContentQuery,
      responses: { 200: { description: 'A page of content', schema: gateway.CmsPage }, ...common },
      handler: (req) => cms.listContent(req.valid.query),
    })
    .route({
      method: 'post',
      path: '/cms/users',
      summary: 'Create a CMS user',
      tags,
      access: { permission: 'cms:admin' },
      body: gateway.CmsUserBody,
      responses: { 201: { description: 'Created', schema: gateway.CmsItem }, 400: { description: 'Invalid body', schema: ErrorBody }, ...common },
      handler: (req) => cms.createUser(req.valid.body),
    })
    .route({
      method: 'get',
      path: '/cms/users',
      summary: 'CMS users',
      tags,
      access: { permission: 'cms:admin' },
      query: gateway.CmsUserQuery,
      responses: { 200: { description: 'A page of users', schema: gateway.CmsPage }, ...common },
      handler: (req) => cms.listUsers(req.valid.query),
    })
    .route({
      method: 'post',
      path: '/cms/sites',
      summary: "Start a job that builds a site's pages in the CMS",
      tags,
      access: write,
      body: gateway.CreateSiteBody,
      responses: {
        202: { description: 'Queued; follow links.self for progress', schema: gateway.SiteJob },
        400: { description: 'Invalid body', schema: ErrorBody },
        ...common,
      },
      handler: (req) => cms.createSite(caller(req), req.valid.body),
    })
    .route({
      method: 'get',
      path: '/cms/sites/:siteId',
      summary: "A site job's progress",
      tags,
      access: read,
      params: gateway.SiteParams,
      responses: { 200: { description: 'The job', schema: gateway.SiteJob }, 404: { description: 'No such job', schema: ErrorBody }, ...common },
      handler: (req) => cms.getSite(caller(req), req.valid.params.siteId),
    });
}
