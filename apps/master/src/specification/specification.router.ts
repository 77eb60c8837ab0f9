import { master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { SpecificationService } from './specification.service';

export function specificationRoutes(api: ApiRouter, specification: SpecificationService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'post',
      path: '/specification/validate',
      summary: 'Validate a manifest',
      description:
        'The result of @platform/manifest: valid, errors and warnings (each with JSON path, code and message). An invalid manifest is a 200 with valid false; a body that is not a JSON object is a 400.',
      tags: ['specification'],
      access: 'authenticated',
      before: limit,
      body: master.ManifestDocument,
      responses: { 200: { description: 'The validation result', schema: master.ValidationResult } },
      handler: (req) => specification.validate(req.valid.body),
    })
    .route({
      method: 'get',
      path: '/specification/taxonomies',
      summary: "The manifest's enumerations",
      description:
        'Kinds, agent kinds and types, tiers, threat categories and severities, capabilities, sandbox types, protocols and the runtime framework extension values.',
      tags: ['specification'],
      access: 'authenticated',
      before: limit,
      responses: { 200: { description: 'The taxonomies', schema: master.Taxonomies } },
      handler: () => specification.taxonomies(),
    })
    .route({
      method: 'get',
      path: '/specification/capabilities',
      summary: 'Capabilities a manifest may declare',
      description: "category=security: security.capabilities (spec 1's 18); category=runtime: extensions.runtime_framework.capabilities. Both when absent.",
      tags: ['specification'],
      access: 'authenticated',
      before: limit,
      query: master.CapabilitiesQuery,
      responses: { 200: { description: 'The capabilities', schema: master.CapabilityList } },
      handler: (req) => specification.capabilities(req.valid.query.category),
    });
}
