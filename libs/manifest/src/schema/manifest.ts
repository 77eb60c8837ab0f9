import { z } from 'zod';
import { MANIFEST_KINDS, SCHEMA_VERSION } from '../enums';
import { API_VERSION } from '../patterns';
import { openObject, patterned } from './common';
import { ExtensionsSchema } from './extensions';
import { MetadataSchema } from './metadata';
import { SecurityPostureSchema } from './security';

/** The agent manifest of spec 1, schema version 0.4.7. Unknown root keys are kept. */
export const ManifestSchema = z
  .looseObject({
    apiVersion: patterned(API_VERSION),
    kind: z.enum(MANIFEST_KINDS),
    metadata: MetadataSchema,
    /** content varies with kind; structure not shown by spec 1 */
    spec: openObject().optional(),
    security: SecurityPostureSchema.optional(),
    /** MCP, A2A and ANP protocol declarations */
    protocols: openObject().optional(),
    token_efficiency: openObject().optional(),
    /** reasoning pattern, trace configuration, governance (draft 0.5.0) */
    cognition: openObject().optional(),
    governance: openObject().optional(),
    extensions: ExtensionsSchema.optional(),
    /** capability bindings for kinds Task and Workflow */
    runtime: openObject().optional(),
    /** for kind Workflow: sequential/parallel projection */
    composition: openObject().optional(),
  })
  .meta({
    title: 'Agent manifest',
    description: `Agent, task, workflow or flow manifest (schema version ${SCHEMA_VERSION}).`,
  });

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestMetadata = z.infer<typeof MetadataSchema>;
