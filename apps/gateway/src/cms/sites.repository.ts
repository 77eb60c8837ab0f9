import type { Db } from '../database';

export type SitePage = { title: string; path: string | null; prompt: string | null; cmsId: string | null; status: string };

export class SitesRepository {
  constructor(private readonly db: Db) {}

  create(data: { ownerSub: string; team: string | null; name: string; request: object; pages: SitePage[] }) {
    return this.db.siteJob.create({ data: { ...data, status: 'queued', pagesTotal: data.pages.length } });
  }

  find(id: string) {
    return this.db.siteJob.findUnique({ where: { id } });
  }

  update(id: string, data: { status?: string; pages?: SitePage[]; pagesDone?: number; error?: string | null; finishedAt?: Date }) {
    return this.db.siteJob.update({ where: { id }, data });
  }
}
