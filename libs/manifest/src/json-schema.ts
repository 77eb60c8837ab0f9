import { z } from 'zod';
import { ManifestSchema } from './schema/manifest';

let cached: object | undefined;

/**
 * The JSON Schema (draft 2020-12) of the manifest, generated from ManifestSchema. Refinements with
 * no JSON Schema form (unique items) are carried by `.meta`. Pass `id` to stamp the URL it is served at.
 */
export function manifestJsonSchema(options: { id?: string } = {}): object {
  cached ??= z.toJSONSchema(ManifestSchema, { target: 'draft-2020-12', unrepresentable: 'any' });
  const copy = structuredClone(cached) as Record<string, unknown>;
  if (!options.id) return copy;
  const { $schema, ...rest } = copy;
  return { $schema, $id: options.id, ...rest };
}
