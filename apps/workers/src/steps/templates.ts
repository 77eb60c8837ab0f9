/**
 * `{{<step_id>.<path>}}` reads an upstream step's output (`{{fetch.body.items.0.id}}`,
 * `{{fetch.status}}`); `{{input.<path>}}` reads the run's input. A string that is exactly one
 * template takes the value as is (numbers, objects); otherwise values are written into the text
 * (objects as JSON).
 */
const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/;

export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** The step ids (and `input`) that the templates of a value read. */
export function templateReferences(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(TEMPLATE)) into.add(match[1]!);
  } else if (Array.isArray(value)) {
    for (const item of value) templateReferences(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (key !== 'id' && key !== 'depends_on') templateReferences(item, into);
  }
  return into;
}

function lookup(scope: Record<string, unknown>, root: string, path: string): unknown {
  if (!(root in scope)) throw new TemplateError(`template reads "${root}", which has no output`);
  let current: unknown = scope[root];
  for (const key of path.split('.').filter(Boolean)) {
    if (current === null || typeof current !== 'object' || !(key in (current as object)))
      throw new TemplateError(`template {{${root}${path}}}: "${key}" not found`);
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Renders every template in a value against `scope` (`input` and the outputs of upstream steps). */
export function renderTemplates<T>(value: T, scope: Record<string, unknown>): T {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(scope, whole[1]!, whole[2] ?? '') as T;
    return value.replace(TEMPLATE, (_match, root: string, path: string) => {
      const found = lookup(scope, root, path ?? '');
      return typeof found === 'string' ? found : JSON.stringify(found ?? null);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => renderTemplates(item, scope)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderTemplates(item, scope)])) as T;
  return value;
}
