import { ErrorBody } from '@platform/contracts';
import { manifestJsonSchema, SCHEMA_VERSION } from '@platform/manifest';
import { notFound, type ApiRouter } from '@platform/http';
import { z } from 'zod';

/**
 * The manifest's JSON Schema (generated from the same zod schema the registry validates with)
 * at stable public URLs: `/schemas/manifest/<version>.json` and `/schemas/manifest/latest.json`.
 */
export function schemaRoutes(api: ApiRouter, publicUrl: string): void {
  const base = `${publicUrl.replace(/\/$/, '')}/api/v1/schemas/manifest`;
  api.route({
    method: 'get',
    path: '/schemas/manifest/:file',
    summary: 'The manifest JSON Schema',
    description: `Public. \`${SCHEMA_VERSION}.json\` is the schema of version ${SCHEMA_VERSION}; \`latest.json\` the newest one the registry validates with.`,
    tags: ['schemas'],
    access: 'public',
    params: z.object({ file: z.string().max(64).describe(`${SCHEMA_VERSION}.json or latest.json`) }),
    responses: {
      200: { description: 'JSON Schema draft 2020-12', schema: z.record(z.string(), z.unknown()), contentTypes: ['application/schema+json'] },
      404: { description: 'No schema of that version', schema: ErrorBody },
    },
    handler: (req, res) => {
      const file = req.valid.params.file;
      if (file !== `${SCHEMA_VERSION}.json` && file !== 'latest.json')
        throw notFound(`No manifest schema ${file}; available: ${SCHEMA_VERSION}.json, latest.json`);
      const schema = manifestJsonSchema({ id: `${base}/${SCHEMA_VERSION}.json` });
      res.setHeader('Cache-Control', file === 'latest.json' ? 'public, max-age=300' : 'public, max-age=86400');
      res.status(200).type('application/schema+json').send(JSON.stringify(schema));
    },
  });
}
