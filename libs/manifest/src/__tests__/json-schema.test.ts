import { AGENT_TYPES, manifestJsonSchema, SECURITY_CAPABILITIES } from '../index';

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('manifestJsonSchema', () => {
  const schema = manifestJsonSchema() as Schema;
  const metadata = schema.properties.metadata;
  const security = schema.properties.security;

  it('is a draft 2020-12 schema generated from ManifestSchema', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(schema.properties.kind.enum).toEqual(['Agent', 'Task', 'Workflow', 'Flow']);
    expect(new RegExp(schema.properties.apiVersion.pattern).test('std/v0.4.7')).toBe(true);
    expect(new RegExp(schema.properties.apiVersion.pattern).test('std/v0.3.1')).toBe(false);
  });

  it('closes exactly the objects spec 1 closes', () => {
    expect(metadata.properties.identity.additionalProperties).toBe(false);
    expect(metadata.properties.identity.properties.publisher.additionalProperties).toBe(false);
    expect(metadata.properties.catalog.additionalProperties).toBe(false);
    expect(metadata.properties.mesh_bindings.additionalProperties).toBe(false);
    expect(security.properties.threat_model.items.additionalProperties).toBe(false);
    expect(schema.properties.extensions.properties.runtime_framework.additionalProperties).toBe(false);
    expect(schema.additionalProperties).not.toBe(false);
    expect(metadata.additionalProperties).not.toBe(false);
    expect(security.additionalProperties).not.toBe(false);
  });

  it('carries bounds, formats, value lists, uniqueness and defaults', () => {
    expect(metadata.properties.name).toMatchObject({ maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });
    expect(metadata.properties.agentType.enum).toEqual([...AGENT_TYPES]);
    expect(metadata.properties.status.default).toBe('active');
    expect(metadata.properties.revoked_at.format).toBe('date-time');
    expect(security.properties.capabilities.properties.required).toMatchObject({ uniqueItems: true, items: { enum: [...SECURITY_CAPABILITIES] } });
    expect(security.properties.sandboxing.required).toEqual(['required']);
    expect(security.properties.sandboxing.properties.resource_limits.properties.max_memory_mb).toMatchObject({ type: 'integer', minimum: 64 });
    expect(schema.properties.extensions.properties.runtime_framework.properties.max_iters).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
  });

  it('stamps an $id when asked and hands out copies', () => {
    const withId = manifestJsonSchema({ id: 'https://registry.example.org/schemas/manifest/0.4.7.json' }) as Schema;
    expect(withId.$id).toBe('https://registry.example.org/schemas/manifest/0.4.7.json');
    withId.properties.kind.enum.push('Bot');
    expect((manifestJsonSchema() as Schema).properties.kind.enum).toHaveLength(4);
  });
});
