import { payloadTooLarge, type Caller } from '@platform/http';
import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import { rules } from '../access';
import type { DatasetRow, DatasetsRepository } from './datasets.repository';

type Dataset = z.infer<typeof tracing.Dataset>;

export const datasetView = (row: DatasetRow): Dataset => ({
  id: row.id,
  name: row.name,
  version: row.version,
  description: row.description,
  example_count: row.exampleCount,
  created_at: row.createdAt.toISOString(),
  owner: row.owner,
  team: row.team,
  ...(row.data !== undefined && { data: row.data as Dataset['data'] }),
});

/**
 * Datasets: a name and examples; the same owner posting a name again stores its next version.
 * Read by the owner, the team and traces:admin (404 to others, as for a missing one).
 */
export class DatasetsService {
  constructor(
    private readonly datasets: DatasetsRepository,
    private readonly maxExampleBytes: number,
  ) {}

  async create(who: Caller, body: z.infer<typeof tracing.CreateDataset>): Promise<Dataset> {
    const owned = rules.dataset.ownerFor(who, body.team);
    body.data.forEach((example, index) => {
      if (Buffer.byteLength(JSON.stringify(example)) > this.maxExampleBytes)
        throw payloadTooLarge(`Example ${index} is larger than ${this.maxExampleBytes} bytes`);
    });
    return datasetView(await this.datasets.createVersion({ name: body.name, description: body.description, data: body.data, ...owned }));
  }

  async list(who: Caller, query: z.infer<typeof tracing.DatasetQuery>): Promise<z.infer<typeof tracing.DatasetPage>> {
    const { rows, total } = await this.datasets.list({ name: query.name }, rules.dataset.readScope(who), query.limit, query.offset);
    return { datasets: rows.map(datasetView), total, limit: query.limit, offset: query.offset };
  }

  async get(who: Caller, id: string): Promise<Dataset> {
    return datasetView(rules.dataset.readable(who, await this.datasets.get(id, true), id));
  }
}
