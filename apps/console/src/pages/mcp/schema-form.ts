/**
 * A tool's JSON Schema (its `inputSchema`) as form fields, and the form's values back as the tool's
 * arguments. Objects with properties become nested fields; what a plain input cannot take
 * (arrays of objects, open objects, unions) is edited as JSON.
 */
type Schema = Record<string, unknown>;

interface FieldBase {
  /** Dotted path of the argument (`query`, `filter.limit`): also the form's key. */
  path: string;
  label: string;
  description?: string;
  required: boolean;
}

export type FormField =
  | (FieldBase & { kind: 'text'; default?: string; minLength?: number; maxLength?: number; pattern?: string; multiline: boolean })
  | (FieldBase & { kind: 'number'; integer: boolean; default?: number; minimum?: number; maximum?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'enum'; options: string[]; default?: string })
  | (FieldBase & { kind: 'list'; itemKind: 'text' | 'number'; default?: string })
  | (FieldBase & { kind: 'json'; default?: string });

/** What the form holds: text for inputs, booleans for switches. */
export type FormValues = Record<string, string | boolean>;

const MAX_DEPTH = 4;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `type` may be a list (`["string", "null"]`): the first type that is not null. */
function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') as string | undefined;
  if (typeof type === 'string') return type;
  if (isObject(schema.properties)) return 'object';
  if (Array.isArray(schema.enum)) return 'enum';
  return undefined;
}

const words = (key: string) => key.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
const labelOf = (key: string, schema: Schema) => (typeof schema.title === 'string' ? schema.title : words(key).replace(/^./, (c) => c.toUpperCase()));

/** The form fields of an object schema, in the order its properties are declared. */
export function fieldsOf(schema: unknown, prefix = '', depth = 0): FormField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: FormField[] = [];
  for (const [key, raw] of Object.entries(schema.properties)) {
    const property = isObject(raw) ? raw : {};
    const base: FieldBase = {
      path: prefix ? `${prefix}.${key}` : key,
      label: labelOf(key, property),
      description: typeof property.description === 'string' ? property.description : undefined,
      required: required.has(key),
    };
    fields.push(...fieldFor(base, property, depth));
  }
  return fields;
}

function fieldFor(base: FieldBase, schema: Schema, depth: number): FormField[] {
  const fallback = schema.default;
  if (Array.isArray(schema.enum) && schema.enum.every((option) => typeof option === 'string')) {
    return [{ ...base, kind: 'enum', options: schema.enum as string[], default: typeof fallback === 'string' ? fallback : undefined }];
  }
  switch (typeOf(schema)) {
    case 'string':
      return [
        {
          ...base,
          kind: 'text',
          default: typeof fallback === 'string' ? fallback : undefined,
          minLength: typeof schema.minLength === 'number' ? schema.minLength : undefined,
          maxLength: typeof schema.maxLength === 'number' ? schema.maxLength : undefined,
          pattern: typeof schema.pattern === 'string' ? schema.pattern : undefined,
          multiline: typeof schema.maxLength !== 'number' || schema.maxLength > 200,
        },
      ];
    case 'number':
    case 'integer':
      return [
        {
          ...base,
          kind: 'number',
          integer: typeOf(schema) === 'integer',
          default: typeof fallback === 'number' ? fallback : undefined,
          minimum: typeof schema.minimum === 'number' ? schema.minimum : undefined,
          maximum: typeof schema.maximum === 'number' ? schema.maximum : undefined,
        },
      ];
    case 'boolean':
      return [{ ...base, kind: 'boolean', default: typeof fallback === 'boolean' ? fallback : undefined }];
    case 'array': {
      const items = isObject(schema.items) ? typeOf(schema.items) : undefined;
      if (items === 'string' || items === 'number' || items === 'integer') {
        return [
          {
            ...base,
            kind: 'list',
            itemKind: items === 'string' ? 'text' : 'number',
            default: Array.isArray(fallback) ? fallback.join(', ') : undefined,
          },
        ];
      }
      return [{ ...base, kind: 'json', default: fallback === undefined ? undefined : JSON.stringify(fallback, null, 2) }];
    }
    case 'object':
      if (isObject(schema.properties) && depth < MAX_DEPTH && Object.keys(schema.properties).length > 0) {
        // A nested object's fields are required only when the object is.
        return fieldsOf(schema, base.path, depth + 1).map((field) => ({
          ...field,
          label: `${base.label} › ${field.label}`,
          required: field.required && base.required,
        }));
      }
      return [{ ...base, kind: 'json', default: fallback === undefined ? undefined : JSON.stringify(fallback, null, 2) }];
    default:
      return [{ ...base, kind: 'json', default: fallback === undefined ? undefined : JSON.stringify(fallback, null, 2) }];
  }
}

/** The form's starting values: each field's default, else empty. */
export function initialValues(fields: readonly FormField[]): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    if (field.kind === 'boolean') values[field.path] = field.default ?? false;
    else values[field.path] = field.default === undefined ? '' : String(field.default);
  }
  return values;
}

export interface ArgumentsResult {
  arguments: Record<string, unknown>;
  /** Per field path, what is wrong with its value; empty when the arguments can be sent. */
  errors: Record<string, string>;
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current = target;
  for (const key of keys.slice(0, -1)) {
    if (!isObject(current[key])) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[keys[keys.length - 1]] = value;
}

function parseNumber(text: string, integer: boolean): number | string {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) return 'a number';
  if (integer && !Number.isInteger(value)) return 'a whole number';
  return value;
}

/**
 * The tool's arguments from the form: numbers read, lists split on commas, JSON parsed; an optional
 * field left empty is left out. Checks what the schema says of each value (required, bounds,
 * length, pattern) so the user sees the problem at the field before the server does.
 */
export function toArguments(fields: readonly FormField[], values: FormValues): ArgumentsResult {
  const out: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.path];
    if (field.kind === 'boolean') {
      if (typeof raw === 'boolean' && (raw || field.required || field.default !== undefined)) setAt(out, field.path, raw);
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (text.trim() === '') {
      if (field.required) errors[field.path] = 'Required';
      continue;
    }
    switch (field.kind) {
      case 'text': {
        if (field.minLength !== undefined && text.length < field.minLength) errors[field.path] = `At least ${field.minLength} characters`;
        else if (field.maxLength !== undefined && text.length > field.maxLength) errors[field.path] = `At most ${field.maxLength} characters`;
        else if (field.pattern !== undefined && !safeTest(field.pattern, text)) errors[field.path] = `Must match ${field.pattern}`;
        else setAt(out, field.path, text);
        break;
      }
      case 'enum':
        if (field.options.includes(text)) setAt(out, field.path, text);
        else errors[field.path] = `One of ${field.options.join(', ')}`;
        break;
      case 'number': {
        const value = parseNumber(text, field.integer);
        if (typeof value === 'string') errors[field.path] = `Must be ${value}`;
        else if (field.minimum !== undefined && value < field.minimum) errors[field.path] = `At least ${field.minimum}`;
        else if (field.maximum !== undefined && value > field.maximum) errors[field.path] = `At most ${field.maximum}`;
        else setAt(out, field.path, value);
        break;
      }
      case 'list': {
        const items = text
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
        if (field.itemKind === 'text') setAt(out, field.path, items);
        else {
          const numbers = items.map((item) => parseNumber(item, false));
          if (numbers.some((item) => typeof item === 'string')) errors[field.path] = 'Numbers separated by commas';
          else setAt(out, field.path, numbers);
        }
        break;
      }
      case 'json':
        try {
          setAt(out, field.path, JSON.parse(text));
        } catch (error) {
          errors[field.path] = `Not JSON: ${(error as Error).message}`;
        }
        break;
    }
  }
  return { arguments: out, errors };
}

/** A schema's pattern may be one JavaScript cannot compile: then the server judges it. */
function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return true;
  }
}
