import type { GitLabPipeline, GitLabScmClient } from '@platform/clients';
import type { gateway } from '@platform/contracts';
import { serviceUnavailable } from '@platform/http';
import type { z } from 'zod';

const pipelineView = (project: string, pipeline: z.infer<typeof GitLabPipeline>) => ({
  id: pipeline.id,
  project,
  ref: pipeline.ref ?? '',
  status: pipeline.status,
  webUrl: pipeline.web_url ?? null,
  createdAt: pipeline.created_at ?? null,
});

/**
 * Pipelines and packages on a GitLab-style source-control server. GitLab pages by page number,
 * so `offset` must fall on a page boundary of `limit`; `total` counts what the pages up to this
 * one hold (GitLab's X-Total is not available to the client).
 */
export class ScmService {
  constructor(private readonly scm: GitLabScmClient | undefined) {}

  private client(): GitLabScmClient {
    if (!this.scm) throw serviceUnavailable('scm is not configured (SCM_URL)', { service: 'scm' });
    return this.scm;
  }

  async createPipeline(body: z.infer<typeof gateway.CreatePipelineBody>) {
    return pipelineView(body.project, await this.client().createPipeline(body.project, body.ref, body.variables));
  }

  async listPipelines(query: z.infer<typeof gateway.PipelineQuery>) {
    const items = await this.client().listPipelines(query.project, {
      page: Math.floor(query.offset / query.limit) + 1,
      per_page: Math.min(query.limit, 100),
      status: query.status,
    });
    return {
      items: items.map((pipeline) => pipelineView(query.project, pipeline)),
      total: query.offset + items.length,
      limit: query.limit,
      offset: query.offset,
    };
  }

  async listPackages(query: z.infer<typeof gateway.PackageQuery>) {
    const [kind, path] = /^(group|project)\//.test(query.scope)
      ? [query.scope.split('/')[0] as 'group' | 'project', query.scope.slice(query.scope.indexOf('/') + 1)]
      : (['project', query.scope] as const);
    const items = await this.client().listPackages(
      { kind, path },
      { page: Math.floor(query.offset / query.limit) + 1, per_page: Math.min(query.limit, 100), package_type: query.package_type },
    );
    return {
      scope: `${kind}/${path}`,
      items: items.map((entry) => ({
        id: entry.id,
        name: entry.name,
        version: entry.version,
        packageType: entry.package_type,
        createdAt: entry.created_at ?? null,
      })),
      total: query.offset + items.length,
      limit: query.limit,
      offset: query.offset,
    };
  }
}
