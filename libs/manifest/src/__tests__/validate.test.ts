import { ManifestParseError, ManifestSchema, parseManifestText, validateManifest } from '../index';

const minimal = { apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'hello' } };

describe('validateManifest input', () => {
  it('reads JSON text, YAML text, a Buffer and an object alike', () => {
    const yaml = 'apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: hello\n';
    expect(validateManifest(JSON.stringify(minimal))).toMatchObject({ valid: true, format: 'json', manifest: minimal, schemaVersion: '0.4.7' });
    expect(validateManifest(yaml)).toMatchObject({ valid: true, format: 'yaml', manifest: minimal });
    expect(validateManifest(Buffer.from(`\ufeff${yaml}`))).toMatchObject({ valid: true, format: 'yaml' });
    expect(validateManifest(minimal)).toMatchObject({ valid: true, format: 'json', manifest: minimal });
  });

  it('reads JSON with the yaml format too, and honours an explicit format', () => {
    expect(validateManifest(JSON.stringify(minimal), { format: 'yaml' })).toMatchObject({ valid: true, format: 'yaml' });
    const result = validateManifest('kind: Agent', { format: 'json' });
    expect(result).toMatchObject({ valid: false, format: 'json', errors: [expect.objectContaining({ code: 'manifest.parse.json', path: '$' })] });
    expect(result.manifest).toBeUndefined();
  });

  it('reports unparseable text with the reason', () => {
    const [error] = validateManifest('kind: [Agent\n').errors;
    expect(error).toMatchObject({ code: 'manifest.parse.yaml', path: '$' });
    expect(error.message).toMatch(/^not valid YAML: .* at line \d+, column \d+$/);
    expect(validateManifest('{\n  "kind": "Agent",\n}').errors[0].message).toMatch(/^not valid JSON: .* at line 3, column 1$/);
    expect(validateManifest('').errors[0].code).toBe('manifest.parse.yaml');
  });

  it('refuses a document that is not an object', () => {
    for (const text of ['42', '"std/v0.4.7"', '[1]', 'null']) {
      expect(validateManifest(text).errors).toEqual([expect.objectContaining({ code: 'manifest.type', path: '$' })]);
    }
  });

  it('keeps YAML 1.2 scalars as written: dates and yes/no stay strings', () => {
    const result = validateManifest(
      'apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: hello\n  status: revoked\n  revoked_at: 2026-03-01T12:00:00Z\n  labels:\n    on: yes\n',
    );
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(result.manifest?.metadata.revoked_at).toBe('2026-03-01T12:00:00Z');
  });

  it('returns the document unchanged: defaults are not filled in, extra keys are kept', () => {
    const document = { ...minimal, metadata: { ...minimal.metadata, catalog: {}, owner: 'me' }, x_root: { a: 1 } };
    const result = validateManifest(document);
    expect(result.valid).toBe(true);
    expect(result.manifest).toEqual(document);
    expect(ManifestSchema.parse(document)).toEqual(document);
  });
});

describe('parseManifestText', () => {
  it('detects the format and throws ManifestParseError with the reason', () => {
    expect(parseManifestText(' {"a": 1}')).toEqual({ document: { a: 1 }, format: 'json' });
    expect(parseManifestText('a: 1')).toEqual({ document: { a: 1 }, format: 'yaml' });
    expect(() => parseManifestText('{"a": }')).toThrow(ManifestParseError);
    expect(() => parseManifestText('a: 1\na: 2\n')).toThrow(/not valid YAML/);
    expect(() => parseManifestText('a: 1\n---\nb: 2\n')).toThrow(/one document, found 2/);
  });
});

describe('issues', () => {
  const errorsOf = (document: object) => validateManifest(document).errors;

  it('say what was expected and what was found', () => {
    const [name] = errorsOf({ ...minimal, metadata: { name: 'My_Agent' } });
    expect(name).toEqual({ path: '$.metadata.name', code: 'manifest.metadata.name.pattern', message: expect.stringContaining('lowercase letters') });
    expect(name.message).toContain('"My_Agent"');
    const [kind] = errorsOf({ ...minimal, kind: 'workflow' });
    expect(kind.message).toMatch(/one of "Agent", "Task", "Workflow", "Flow"; found "workflow" \(did you mean "Workflow"\?\)/);
    const [version] = errorsOf({ ...minimal, metadata: { name: 'a', version: 1.5 } });
    expect(version.message).toBe('metadata.version must be a string; found number 1.5');
    const [yamlVersion] = validateManifest('apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: a\n  version: 1.5\n').errors;
    expect(yamlVersion.message).toBe('metadata.version must be a string; found number 1.5 (in YAML, put the value in quotes)');
    const [apiVersion] = errorsOf({ ...minimal, apiVersion: 'ossa/v0.4.7' });
    expect(apiVersion.message).toContain('found "ossa/v0.4.7" (write "std/v" instead of "ossa/v")');
    const [limit] = errorsOf({ ...minimal, security: { sandboxing: { required: true, resource_limits: { max_memory_mb: 32 } } } });
    expect(limit.message).toBe('security.sandboxing.resource_limits.max_memory_mb must be at least 64; found number 32');
  });

  it('report every problem at once, each with its own path', () => {
    const errors = errorsOf({
      kind: 'Bot',
      metadata: { name: 'ok', identity: { agent_id: 'x', owner: 'me', team: 'y' } },
      security: { threat_model: [{ category: 'custom' }, { category: 'x' }] },
    });
    expect(errors.map((e) => `${e.code} @ ${e.path}`)).toEqual([
      'manifest.apiVersion.required @ $.apiVersion',
      'manifest.kind.enum @ $.kind',
      'manifest.metadata.identity.unknown_key @ $.metadata.identity.owner',
      'manifest.metadata.identity.unknown_key @ $.metadata.identity.team',
      'manifest.security.threat_model.category.enum @ $.security.threat_model[1].category',
    ]);
  });

  it('reject extra keys where spec 1 says so and keep them elsewhere', () => {
    const strict = ['identity', 'catalog', 'mesh_bindings'];
    for (const key of strict) {
      const base = key === 'identity' ? { agent_id: 'a' } : {};
      expect(errorsOf({ ...minimal, metadata: { name: 'a', [key]: { ...base, extra: 1 } } }).map((e) => e.code)).toEqual([
        `manifest.metadata.${key}.unknown_key`,
      ]);
    }
    expect(errorsOf({ ...minimal, metadata: { name: 'a', identity: { agent_id: 'a', publisher: { name: 'p', extra: 1 } } } })[0].code).toBe(
      'manifest.metadata.identity.publisher.unknown_key',
    );
    expect(errorsOf({ ...minimal, extensions: { runtime_framework: { extra: 1 } } })[0].code).toBe('manifest.extensions.runtime_framework.unknown_key');
    expect(errorsOf({ ...minimal, security: { threat_model: [{ category: 'custom', extra: 1 }] } })[0].code).toBe('manifest.security.threat_model.unknown_key');
    expect(errorsOf({ ...minimal, extra: 1, metadata: { name: 'a', extra: 1 }, extensions: { other: 1 }, security: { extra: 1 } })).toEqual([]);
  });
});

describe('status warnings', () => {
  const warningsOf = (metadata: object) => validateManifest({ ...minimal, metadata: { name: 'a', ...metadata } }).warnings.map((w) => w.code);

  it('flag missing and out-of-place companions of metadata.status', () => {
    expect(warningsOf({ status: 'deprecated' })).toEqual(['manifest.metadata.deprecated_message.missing']);
    expect(warningsOf({ status: 'deprecated', deprecated_message: 'use b' })).toEqual([]);
    expect(warningsOf({ status: 'revoked' })).toEqual(['manifest.metadata.revoked_at.missing']);
    expect(warningsOf({ status: 'revoked', revoked_at: '2026-01-01T00:00:00+02:00' })).toEqual([]);
    expect(warningsOf({ revoked_at: '2026-01-01T00:00:00Z' })).toEqual(['manifest.metadata.revoked_at.unexpected']);
    expect(warningsOf({ status: 'active', deprecated_message: 'x' })).toEqual(['manifest.metadata.deprecated_message.unexpected']);
  });
});
