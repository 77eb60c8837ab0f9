import { notFound, payloadTooLarge } from '@platform/http';
import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import type { DatasetRow, DatasetsRepository } from './datasets.repository';

type Dataset = z.infer<typeof tracing.Dataset>;

export const datasetView = (row: DatasetRow): Dataset => ({
  id: row.id,
  name: row.name,
  version: row.version,
  description: row.description,
  example_count: row.exampleCount,
  created_at: row.createdAt.toISOString(),
  ...(row.data !== undefined && { data: row.data as Dataset['data'] }),
});

/** Datasets: a name and examples; posting a name again stores its next version. */
export class DatasetsService {
  constructor(
    private readonly datasets: DatasetsRepository,
    private readonly maxExampleBytes: number,
  ) {}

  async create(body: z.infer<typeof tracing.CreateDataset>, createdBy?: string): Promise<Dataset> {
    body.data.forEach((example, index) => {
      if (Buffer.byteLength(JSON.stringify(example)) > this.maxExampleBytes)
        throw payloadTooLarge(`Example ${index} is larger than ${this.maxExampleBytes} bytes`);
    });
    return datasetView(await this.datasets.createVersion({ name: body.name, description: body.description, data: body.data, createdBy }));
  }

  async list(query: z.infer<typeof tracing.DatasetQuery>): Promise<z.infer<typeof tracing.DatasetPage>> {
    const { rows, total } = await this.datasets.list({ name: query.name }, query.limit, query.offset);
    return { datasets: rows.map(datasetView), total, limit: query.limit, offset: query.offset };
  }

  async get(id: string): Promise<Dataset> {
    const row = await this.datasets.get(id, true);
    if (!row) throw notFound(`No dataset ${id}`);
    return datasetView(row);
  }
}
