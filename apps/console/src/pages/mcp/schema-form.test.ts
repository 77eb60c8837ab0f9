import { fieldsOf, initialValues, toArguments } from './schema-form';

// The shape of the MCP reference server's tools (zod-to-json-schema output), and a wider one.
const echo = {
  type: 'object',
  properties: { message: { type: 'string', description: 'Message to echo' } },
  required: ['message'],
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
};

const search = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 2, maxLength: 100 },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    score: { type: ['number', 'null'] },
    exact: { type: 'boolean', default: false },
    mode: { enum: ['fast', 'thorough'], default: 'fast' },
    tags: { type: 'array', items: { type: 'string' } },
    weights: { type: 'array', items: { type: 'number' } },
    filter: {
      type: 'object',
      properties: { owner_id: { type: 'string', pattern: '^u-\\d+$' }, since: { type: 'string' } },
      required: ['owner_id'],
    },
    sort: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' } } } },
    extra: { type: 'object', additionalProperties: true },
  },
  required: ['query', 'filter'],
};

describe('fieldsOf', () => {
  it("turns the echo tool's schema into one required text field", () => {
    expect(fieldsOf(echo)).toEqual([
      { path: 'message', label: 'Message', description: 'Message to echo', required: true, kind: 'text', multiline: true },
    ]);
  });

  it('maps each JSON Schema type to a field, nested objects to nested fields', () => {
    const fields = fieldsOf(search);
    expect(fields.map((field) => [field.path, field.kind, field.required])).toEqual([
      ['query', 'text', true],
      ['limit', 'number', false],
      ['score', 'number', false],
      ['exact', 'boolean', false],
      ['mode', 'enum', false],
      ['tags', 'list', false],
      ['weights', 'list', false],
      ['filter.owner_id', 'text', true],
      ['filter.since', 'text', false],
      ['sort', 'json', false],
      ['extra', 'json', false],
    ]);
    expect(fields.find((field) => field.path === 'filter.owner_id')?.label).toBe('Filter › Owner id');
    expect(fields.find((field) => field.path === 'limit')).toMatchObject({ integer: true, minimum: 1, maximum: 50, default: 10 });
  });

  it('gives no fields for a schema without properties', () => {
    expect(fieldsOf({ type: 'object' })).toEqual([]);
    expect(fieldsOf(undefined)).toEqual([]);
    expect(fieldsOf('nonsense')).toEqual([]);
  });

  it('stops nesting at a depth and edits deeper objects as JSON', () => {
    let schema: Record<string, unknown> = { type: 'object', properties: { leaf: { type: 'string' } } };
    for (let level = 0; level < 6; level++) schema = { type: 'object', properties: { inner: schema } };
    const fields = fieldsOf(schema);
    expect(fields).toHaveLength(1);
    expect(fields[0].kind).toBe('json');
  });
});

describe('initialValues and toArguments', () => {
  it('starts from the defaults', () => {
    expect(initialValues(fieldsOf(search))).toMatchObject({ query: '', limit: '10', exact: false, mode: 'fast', 'filter.owner_id': '' });
  });

  it('builds the arguments a tool takes, leaving out empty optional fields', () => {
    const fields = fieldsOf(search);
    const values = {
      ...initialValues(fields),
      query: 'agents',
      limit: '25',
      exact: true,
      tags: 'a, b,,c ',
      weights: '0.5, 2',
      'filter.owner_id': 'u-7',
      sort: '[{"field":"name"}]',
    };
    expect(toArguments(fields, values)).toEqual({
      arguments: {
        query: 'agents',
        limit: 25,
        exact: true,
        mode: 'fast',
        tags: ['a', 'b', 'c'],
        weights: [0.5, 2],
        filter: { owner_id: 'u-7' },
        sort: [{ field: 'name' }],
      },
      errors: {},
    });
  });

  it('names what is wrong at each field', () => {
    const fields = fieldsOf(search);
    const values = {
      ...initialValues(fields),
      query: 'a',
      limit: '2.5',
      score: 'many',
      mode: 'slow',
      weights: '1, x',
      'filter.owner_id': 'someone',
      extra: '{not json',
    };
    const { errors } = toArguments(fields, values);
    expect(errors).toEqual({
      query: 'At least 2 characters',
      limit: 'Must be a whole number',
      score: 'Must be a number',
      mode: 'One of fast, thorough',
      weights: 'Numbers separated by commas',
      'filter.owner_id': 'Must match ^u-\\d+$',
      extra: expect.stringMatching(/^Not JSON/),
    });
  });

  it('reports missing required fields, and bounds', () => {
    const fields = fieldsOf(search);
    expect(toArguments(fields, { ...initialValues(fields), limit: '99' }).errors).toEqual({
      query: 'Required',
      limit: 'At most 50',
      'filter.owner_id': 'Required',
    });
    expect(toArguments(fieldsOf(echo), { message: 'hello' })).toEqual({ arguments: { message: 'hello' }, errors: {} });
  });
});
