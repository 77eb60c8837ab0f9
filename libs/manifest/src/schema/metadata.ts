import { z } from 'zod';
import { AGENT_KINDS, AGENT_TYPES, CATALOG_VISIBILITIES, MANIFEST_STATUSES, SIGNATURE_TYPES } from '../enums';
import { CHECKSUM, DNS_LABEL, IDENTITY_NAMESPACE, MACHINE_NAME, PGP_KEY, SEMVER, URI_OR_DID, URI_OR_PATH } from '../patterns';
import { dateTime, patterned } from './common';

export const PublisherSchema = z.strictObject({
  name: z.string().max(200),
  email: z.email().optional(),
  website: z.url().optional(),
  pgp_key: patterned(PGP_KEY).optional(),
  registry_url: z.url().optional(),
});

export const IdentitySchema = z.strictObject({
  agent_id: patterned(DNS_LABEL).max(63),
  namespace: patterned(IDENTITY_NAMESPACE).max(253).optional(),
  version: patterned(SEMVER).optional(),
  publisher: PublisherSchema.optional(),
  checksum: patterned(CHECKSUM).optional(),
  created_at: dateTime().optional(),
  updated_at: dateTime().optional(),
});

export const CatalogSchema = z.strictObject({
  published: z.boolean().meta({ default: false }).optional(),
  catalog_id: z.string().optional(),
  visibility: z.enum(CATALOG_VISIBILITIES).meta({ default: 'private' }).optional(),
  categories: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
});

export const MeshBindingsSchema = z.strictObject({
  source_project_id: z.string().optional(),
  /** UUID of the agent in the spatial interaction matrix */
  execution_node_id: z.uuid().optional(),
});

/** `metadata.x-signature`: value and publicKey encodings are checked when the signature is verified. */
export const SignatureSchema = z.looseObject({
  type: z.enum(SIGNATURE_TYPES),
  value: z.string(),
  publicKey: z.string(),
  issuer: patterned(URI_OR_DID).optional(),
  timestamp: dateTime().optional(),
});

// Defaults are declared with `.meta` rather than `.default` so that validation never rewrites the
// document: a manifest is stored and signed exactly as its author wrote it.
export const MetadataSchema = z.looseObject({
  name: patterned(DNS_LABEL).max(253),
  namespace: patterned(DNS_LABEL).max(63).optional(),
  version: patterned(SEMVER).optional(),
  description: z.string().max(2000).optional(),
  uuid: z.uuidv4().optional(),
  'x-signature': SignatureSchema.optional(),
  machine_name: patterned(MACHINE_NAME).max(128).optional(),
  signature: z.string().optional(),
  sbom_pointer: patterned(URI_OR_PATH).optional(),
  status: z.enum(MANIFEST_STATUSES).meta({ default: 'active' }).optional(),
  revoked_at: dateTime().optional(),
  deprecated_message: z.string().max(500).optional(),
  labels: z.record(z.string(), z.string().max(63)).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  identity: IdentitySchema.optional(),
  catalog: CatalogSchema.optional(),
  mesh_bindings: MeshBindingsSchema.optional(),
  agentType: z.enum(AGENT_TYPES).optional(),
  agentKind: z.enum(AGENT_KINDS).optional(),
});
