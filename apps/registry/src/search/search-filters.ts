import { registry } from '@platform/contracts';
import { badRequest } from '@platform/http';

type Filters = Omit<registry.AgentListQuery, 'limit' | 'offset'>;

const issue = (message: string, code = 'invalid_filters') => badRequest(`filters: ${message}`, { issues: [{ path: 'query.filters', message, code }] });

/**
 * Reads spec 2's `filters` search parameter: `key:value,key:value` or a JSON object, with the keys
 * of the separate filter parameters. A filter given both ways must agree (400 otherwise).
 */
export function mergeFilters(text: string | undefined, separate: Filters): Filters {
  if (text === undefined || text.trim() === '') return separate;
  let raw: Record<string, unknown>;
  if (text.trim().startsWith('{')) {
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw issue('not valid JSON');
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw issue('expected a JSON object');
  } else {
    raw = {};
    for (const pair of text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const colon = pair.indexOf(':');
      if (colon <= 0) throw issue(`"${pair}" is not key:value`);
      raw[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
    }
  }
  const parsed = registry.SearchFilters.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw issue(`${first.path.join('.') || 'filters'}: ${first.message}`, first.code);
  }
  const merged: Record<string, unknown> = { ...separate };
  for (const [key, value] of Object.entries(parsed.data)) {
    if (value === undefined) continue;
    if (merged[key] !== undefined && merged[key] !== value) throw issue(`${key} is given twice with different values`, 'conflicting_filters');
    merged[key] = value;
  }
  return merged as Filters;
}
