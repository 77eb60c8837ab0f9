/**
 * A node type's JSON Schema (the engine's `inputSchema` of its `data`) as the fields of a Mantine
 * form, and the form's values back as the node's `data`. Strings, numbers, booleans and enums get
 * their own inputs; objects, arrays, unions and open values are edited as JSON (a union that takes
 * a string also takes plain text).
 */
type Schema = Record<string, unknown>;

interface FieldBase {
  /** The key in the node's `data`. */
  name: string;
  label: string;
  description?: string;
  required: boolean;
}

export type ParamField =
  | (FieldBase & { kind: 'string'; multiline: boolean; minLength?: number; maxLength?: number; pattern?: string; default?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'enum'; options: string[]; default?: string })
  | (FieldBase & { kind: 'json'; acceptsText: boolean; default?: unknown });

/** What the form holds per field: text for inputs and JSON, a number or '' for numbers, a boolean for switches. */
export type ParamValue = string | number | boolean;
export type ParamValues = Record<string, ParamValue>;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
const SAFE = 9_007_199_254_740_991;
const WHOLE_TEMPLATE = /^\{\{\s*[A-Za-z][A-Za-z0-9_-]*\.[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*\s*\}\}$/;

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return (schema.type as string[]).filter((type) => type !== 'null');
  if (typeof schema.type === 'string') return [schema.type];
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return union.filter(isObject).flatMap(typesOf);
  return [];
}

const words = (key: string) =>
  key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
const labelOf = (key: string, schema: Schema) => (typeof schema.title === 'string' ? schema.title : words(key).replace(/^./, (c) => c.toUpperCase()));
const bound = (value: unknown) => (typeof value === 'number' && Math.abs(value) < SAFE ? value : undefined);

/** The fields of an object schema, required ones first, otherwise in declared order. */
export function paramFields(schema: unknown): ParamField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(schema.properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const base: FieldBase = {
      name,
      label: labelOf(name, property),
      ...(typeof property.description === 'string' && { description: property.description }),
      required: required.has(name),
    };
    return fieldOf(base, property);
  });
  return [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)];
}

function fieldOf(base: FieldBase, schema: Schema): ParamField {
  const fallback = schema.default;
  const types = typesOf(schema);
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every((option) => typeof option === 'string'))
    return { ...base, kind: 'enum', options: schema.enum as string[], ...(typeof fallback === 'string' && { default: fallback }) };
  if (types.length === 1 && !schema.anyOf && !schema.oneOf) {
    const [type] = types;
    if (type === 'string') {
      const maxLength = bound(schema.maxLength);
      return {
        ...base,
        kind: 'string',
        multiline: maxLength === undefined || maxLength > 256,
        ...(bound(schema.minLength) !== undefined && { minLength: bound(schema.minLength) }),
        ...(maxLength !== undefined && { maxLength }),
        ...(typeof schema.pattern === 'string' && { pattern: schema.pattern }),
        ...(typeof fallback === 'string' && { default: fallback }),
      };
    }
    if (type === 'number' || type === 'integer')
      return {
        ...base,
        kind: 'number',
        integer: type === 'integer',
        ...(bound(schema.minimum) !== undefined && { minimum: bound(schema.minimum) }),
        ...(bound(schema.maximum) !== undefined && { maximum: bound(schema.maximum) }),
        ...(typeof fallback === 'number' && { default: fallback }),
      };
    if (type === 'boolean') return { ...base, kind: 'boolean', ...(typeof fallback === 'boolean' && { default: fallback }) };
  }
  // An open value (`{}`: any JSON) takes text as well.
  return { ...base, kind: 'json', acceptsText: types.length === 0 || types.includes('string'), ...(fallback !== undefined && { default: fallback }) };
}

/** The form's values for a node's current `data` (a field the data lacks shows empty, not its default). */
export function valuesFromParams(fields: readonly ParamField[], params: Record<string, unknown>): ParamValues {
  const values: ParamValues = {};
  for (const field of fields) {
    const value = params[field.name];
    if (field.kind === 'boolean') values[field.name] = typeof value === 'boolean' ? value : (field.default ?? false);
    else if (value === undefined) values[field.name] = '';
    else if (field.kind === 'number') values[field.name] = typeof value === 'number' ? value : String(value);
    else if (field.kind === 'json') values[field.name] = typeof value === 'string' && field.acceptsText ? value : JSON.stringify(value, null, 2);
    else values[field.name] = String(value);
  }
  return values;
}

export interface ParamsResult {
  params: Record<string, unknown>;
  /** Field name → what is wrong with it before the engine is even asked (JSON that does not parse). */
  errors: Record<string, string>;
}

/**
 * The node's `data` from the form: empty inputs are left out (the engine applies its defaults and
 * says what is required), numbers stay numbers, JSON is parsed. Keys of `previous` that the schema
 * does not know are kept, so nothing a flow holds is lost by editing it.
 */
export function paramsFromValues(fields: readonly ParamField[], values: ParamValues, previous: Record<string, unknown> = {}): ParamsResult {
  const known = new Set(fields.map((field) => field.name));
  const params: Record<string, unknown> = Object.fromEntries(Object.entries(previous).filter(([key]) => !known.has(key)));
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') {
      if (typeof value === 'boolean' && (value !== (field.default ?? false) || field.name in previous)) params[field.name] = value;
      continue;
    }
    if (value === '' || value === undefined) continue;
    if (field.kind === 'number') {
      const number = typeof value === 'number' ? value : Number(value);
      // A whole template (`{{node.output}}`) is resolved at run time, whatever the field's type.
      params[field.name] = Number.isFinite(number) && String(value).trim() !== '' ? number : String(value);
    } else if (field.kind === 'json') {
      const text = String(value);
      try {
        params[field.name] = JSON.parse(text);
      } catch {
        // A whole template (`{{node.output}}`) takes the referenced value's type at run time.
        if (field.acceptsText || WHOLE_TEMPLATE.test(text.trim())) params[field.name] = field.acceptsText ? text : text.trim();
        else errors[field.name] = 'Not valid JSON';
      }
    } else params[field.name] = String(value);
  }
  return { params, errors };
}

/** One problem the engine's validation named: its node and the field inside the node's data. */
export interface NodeIssue {
  field: string;
  message: string;
}

/**
 * The engine's 400 (`details.issues[]`: `{path: "body.flow.nodes[2].data.prompt", nodeId, message}`)
 * as problems per node id; issues that name no node are kept under `''`.
 */
export function issuesByNode(details: unknown): Map<string, NodeIssue[]> {
  const found = new Map<string, NodeIssue[]>();
  const issues = isObject(details) && Array.isArray(details.issues) ? details.issues : [];
  for (const issue of issues) {
    if (!isObject(issue)) continue;
    const path = typeof issue.path === 'string' ? issue.path : Array.isArray(issue.path) ? issue.path.join('.') : '';
    const nodeId = typeof issue.nodeId === 'string' ? issue.nodeId : '';
    const dataField = /\.data\.(.+)$/.exec(path)?.[1];
    const field = dataField ?? path.replace(/^body\.flow\./, '').replace(/^body\./, '');
    const message = typeof issue.message === 'string' ? issue.message : 'Invalid';
    found.set(nodeId, [...(found.get(nodeId) ?? []), { field, message }]);
  }
  return found;
}
