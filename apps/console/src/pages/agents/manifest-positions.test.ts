import { locatePath, parseIssuePath } from './manifest-positions';

const yamlText = [
  'apiVersion: std/v0.4.7',
  'kind: Agent',
  'metadata:',
  '  name: Bad_Name',
  '  version: 1.0.0',
  '  labels:',
  '    team: search',
  'security:',
  '  tier: tier_1_read',
  '  threat_model:',
  '    - category: prompt-injection',
  '      severity: high',
  '    - category: made-up',
  '      mitigations:',
  '        - input filtering',
  '        - 42',
  '  capabilities:',
  '    required: [network-outbound, "not-a-capability"]',
  '',
].join('\n');

const jsonText = JSON.stringify(
  {
    apiVersion: 'std/v0.4.7',
    kind: 'Agent',
    metadata: { name: 'ok', 'x-signature': { type: 'Ed25519', value: 'x' } },
    security: { threat_model: [{ category: 'prompt-injection' }, { category: 'made-up', mitigations: ['a', 7] }] },
  },
  null,
  2,
);

const textAt = (text: string, span: { from: number; to: number }) => text.slice(span.from, span.to);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;

describe('parseIssuePath', () => {
  it.each([
    ['$.metadata.name', ['metadata', 'name']],
    ['$.security.threat_model[1].category', ['security', 'threat_model', 1, 'category']],
    ['body.manifest.metadata["x-signature"].value', ['metadata', 'x-signature', 'value']],
    ["$['odd key'][0]", ['odd key', 0]],
    ['metadata.labels.team', ['metadata', 'labels', 'team']],
    ['body.manifest.security.threat_model.1.mitigations.0', ['security', 'threat_model', 1, 'mitigations', 0]],
    ['body.manifest.metadata.x-signature.type', ['metadata', 'x-signature', 'type']],
    ['$', []],
    ['body.manifest', []],
  ])('reads %s', (path, segments) => {
    expect(parseIssuePath(path)).toEqual(segments);
  });

  it("takes zod's array paths, dropping the request body's prefix", () => {
    expect(parseIssuePath(['body', 'manifest', 'security', 'threat_model', 0])).toEqual(['security', 'threat_model', 0]);
    expect(parseIssuePath(['metadata', 'name'])).toEqual(['metadata', 'name']);
  });

  it('stops at a part it cannot read instead of guessing', () => {
    expect(parseIssuePath('$.metadata.name!!')).toEqual(['metadata', 'name']);
  });
});

describe('locatePath in YAML', () => {
  it('puts a scalar error on its key and value', () => {
    const span = locatePath(yamlText, '$.metadata.name');
    expect(textAt(yamlText, span)).toBe('name: Bad_Name');
    expect(span).toMatchObject({ line: 4, column: 3, exact: true });
  });

  it('finds items of nested arrays', () => {
    const category = locatePath(yamlText, '$.security.threat_model[1].category');
    expect(textAt(yamlText, category)).toBe('category: made-up');
    expect(category.line).toBe(lineOf(yamlText, 'made-up'));

    const mitigation = locatePath(yamlText, '$.security.threat_model[1].mitigations[1]');
    expect(textAt(yamlText, mitigation)).toBe('42');
    expect(mitigation.line).toBe(lineOf(yamlText, '- 42'));
  });

  it('finds items of flow sequences', () => {
    const span = locatePath(yamlText, '$.security.capabilities.required[1]');
    expect(textAt(yamlText, span)).toBe('"not-a-capability"');
    expect(span.line).toBe(lineOf(yamlText, 'required:'));
  });

  it('spans only the key line of a map or list value', () => {
    expect(textAt(yamlText, locatePath(yamlText, '$.security.threat_model'))).toBe('threat_model');
    const item = locatePath(yamlText, '$.security.threat_model[0]');
    expect(textAt(yamlText, item)).toBe('category: prompt-injection');
  });

  it('puts a missing key on its nearest parent, not exact', () => {
    const span = locatePath(yamlText, '$.security.threat_model[0].mitigations');
    expect(span.exact).toBe(false);
    expect(textAt(yamlText, span)).toBe('category: prompt-injection');

    const missingSection = locatePath(yamlText, '$.metadata.identity.agent_id');
    expect(missingSection).toMatchObject({ line: 3, exact: false });
    expect(textAt(yamlText, missingSection)).toBe('metadata');
  });

  it('puts an index past the end of an array on the array', () => {
    const span = locatePath(yamlText, '$.security.threat_model[5]');
    expect(span.exact).toBe(false);
    expect(textAt(yamlText, span)).toBe('threat_model');
  });

  it('puts a root-level error on the first line', () => {
    const span = locatePath(yamlText, '$');
    expect(span.line).toBe(1);
    expect(textAt(yamlText, span)).toBe('apiVersion: std/v0.4.7');
    const missingRoot = locatePath(yamlText, '$.spec');
    expect(missingRoot).toMatchObject({ line: 1, exact: false });
  });

  it('reads an error path of the gateway and of zod alike', () => {
    expect(locatePath(yamlText, 'body.manifest.metadata.labels.team').line).toBe(lineOf(yamlText, 'team: search'));
    expect(locatePath(yamlText, ['body', 'manifest', 'kind']).line).toBe(2);
  });

  it('survives an empty document', () => {
    expect(locatePath('', '$.metadata.name')).toMatchObject({ from: 0, to: 0, line: 1, exact: false });
  });
});

describe('locatePath in JSON', () => {
  it('puts a scalar error on its quoted key and value', () => {
    const span = locatePath(jsonText, '$.metadata.name');
    expect(textAt(jsonText, span)).toBe('"name": "ok"');
    expect(span.line).toBe(lineOf(jsonText, '"name": "ok"'));
  });

  it('finds keys that are no identifiers and items of nested arrays', () => {
    expect(textAt(jsonText, locatePath(jsonText, '$.metadata["x-signature"].type'))).toBe('"type": "Ed25519"');
    const item = locatePath(jsonText, '$.security.threat_model[1].mitigations[1]');
    expect(textAt(jsonText, item)).toBe('7');
    expect(item.line).toBe(jsonText.split('\n').findIndex((line) => line.trim() === '7') + 1);
  });

  it('puts a missing key on its parent', () => {
    const span = locatePath(jsonText, '$.security.threat_model[0].severity');
    expect(span.exact).toBe(false);
    expect(span.line).toBe(lineOf(jsonText, '"category": "prompt-injection"') - 1);
  });
});
