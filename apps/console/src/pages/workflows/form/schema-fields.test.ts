import { issuesByNode, paramFields, paramsFromValues, valuesFromParams } from './schema-fields';

// The engine's JSON Schemas of three components, as `GET /components` serves them.
const llm = {
  type: 'object',
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 100000 },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    seed: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
  },
  required: ['prompt'],
};
const merge = {
  type: 'object',
  properties: {
    inputs: {
      anyOf: [
        { type: 'array', items: {} },
        { type: 'object', additionalProperties: {} },
      ],
    },
    mode: { default: 'auto', type: 'string', enum: ['auto', 'object', 'array'] },
  },
  required: ['inputs'],
};
const search = {
  type: 'object',
  properties: {
    collection: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    minScore: { default: -1, type: 'number', minimum: -1, maximum: 1 },
    query: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] },
    exact: { type: 'boolean' },
  },
  required: ['query', 'collection'],
};

describe('JSON Schema → form fields', () => {
  it('maps strings, numbers, integers, enums, booleans and the rest to JSON', () => {
    expect(paramFields(llm)).toEqual([
      { name: 'prompt', label: 'Prompt', required: true, kind: 'string', multiline: true, minLength: 1, maxLength: 100000 },
      { name: 'model', label: 'Model', required: false, kind: 'string', multiline: false, minLength: 1, maxLength: 200 },
      { name: 'temperature', label: 'Temperature', required: false, kind: 'number', integer: false, minimum: 0, maximum: 2 },
      // Bounds that only restate JavaScript's safe integers are no bounds to show.
      { name: 'seed', label: 'Seed', required: false, kind: 'number', integer: true },
    ]);
    expect(paramFields(merge)).toEqual([
      { name: 'inputs', label: 'Inputs', required: true, kind: 'json', acceptsText: false },
      { name: 'mode', label: 'Mode', required: false, kind: 'enum', options: ['auto', 'object', 'array'], default: 'auto' },
    ]);
    const fields = paramFields(search);
    expect(fields.map((field) => [field.name, field.kind])).toEqual([
      ['collection', 'string'],
      ['query', 'json'],
      ['minScore', 'number'],
      ['exact', 'boolean'],
    ]);
    expect(fields[0]).toMatchObject({ pattern: '^[A-Za-z0-9_.-]{1,128}$' });
    expect(fields[1]).toMatchObject({ acceptsText: true });
    expect(paramFields({ type: 'object', properties: { max_tokens: { type: ['integer', 'null'] } } })[0]).toMatchObject({
      label: 'Max tokens',
      kind: 'number',
    });
    expect(paramFields(undefined)).toEqual([]);
  });

  it('fills the form from a node and reads the node back, unchanged', () => {
    const fields = paramFields(search);
    const params = { collection: 'docs', query: [0.5, 1], minScore: 0.2, exact: true, extra: 'kept' };
    const values = valuesFromParams(fields, params);
    expect(values).toEqual({ collection: 'docs', query: '[\n  0.5,\n  1\n]', minScore: 0.2, exact: true });
    expect(paramsFromValues(fields, values, params)).toEqual({ params, errors: {} });
  });

  it('leaves empty inputs out, keeps text in a union that takes it, keeps templates in numbers', () => {
    const fields = paramFields(search);
    const read = paramsFromValues(fields, { collection: '', query: 'what is a cat?', minScore: '{{a.score}}', exact: false });
    expect(read).toEqual({ params: { query: 'what is a cat?', minScore: '{{a.score}}' }, errors: {} });
  });

  it('says which JSON field does not parse, before the engine is asked', () => {
    const read = paramsFromValues(paramFields(merge), { inputs: '[1, 2', mode: 'array' });
    expect(read.errors).toEqual({ inputs: 'Not valid JSON' });
    expect(read.params).toEqual({ mode: 'array' });
  });

  it('takes a whole template in any JSON field, and text in an open one', () => {
    expect(paramsFromValues(paramFields(merge), { inputs: ' {{a.merged}} ', mode: '' })).toEqual({ params: { inputs: '{{a.merged}}' }, errors: {} });
    const condition = paramFields({ type: 'object', properties: { condition: { type: 'string' }, input: {} }, required: ['condition'] });
    expect(condition[1]).toMatchObject({ kind: 'json', acceptsText: true });
    expect(paramsFromValues(condition, { condition: '$count($) = 2', input: '{{m.merged}}' }).params).toEqual({
      condition: '$count($) = 2',
      input: '{{m.merged}}',
    });
    expect(paramsFromValues(condition, { condition: 'x', input: '{"a": 1}' }).params.input).toEqual({ a: 1 });
  });
});

describe("the engine's validation answer, per node", () => {
  it('puts each issue on the node it names, with the field inside its data', () => {
    const details = {
      issues: [
        { path: 'body.flow.nodes[1].data.prompt', nodeId: 'llm1', message: 'Too small', code: 'invalid_flow' },
        { path: 'body.flow.nodes[1].data.options.temperature', nodeId: 'llm1', message: 'Too big', code: 'invalid_flow' },
        { path: 'body.flow.edges', nodeId: 'merge1', message: 'The edges form a cycle through merge1, merge2', code: 'invalid_flow' },
        { path: 'body.name', message: 'Required' },
      ],
    };
    const byNode = issuesByNode(details);
    expect(byNode.get('llm1')).toEqual([
      { field: 'prompt', message: 'Too small' },
      { field: 'options.temperature', message: 'Too big' },
    ]);
    expect(byNode.get('merge1')).toEqual([{ field: 'edges', message: 'The edges form a cycle through merge1, merge2' }]);
    expect(byNode.get('')).toEqual([{ field: 'name', message: 'Required' }]);
    expect(issuesByNode(undefined).size).toBe(0);
  });
});
