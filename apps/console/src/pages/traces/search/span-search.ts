import { tracing } from '@platform/contracts';

/** The span search form, as the page keeps it (and as its URL carries it). */
export interface SpanSearch {
  name: string;
  status: '' | 'OK' | 'ERROR' | 'UNSET';
  /** ISO date-times, or empty. */
  from: string;
  to: string;
  /** `key=value` pairs, one a line (or separated by commas). */
  attributes: string;
}

export const EMPTY_SEARCH: SpanSearch = { name: '', status: '', from: '', to: '', attributes: '' };
/** The tracing service takes at most this many `attr.<key>` filters. */
export const MAX_ATTRIBUTE_FILTERS = 10;

export function parseAttributeFilters(text: string): { filters: Array<[string, string]>; errors: string[] } {
  const filters: Array<[string, string]> = [];
  const errors: string[] = [];
  for (const part of text.split(/[\n,]/)) {
    const entry = part.trim();
    if (!entry) continue;
    const at = entry.indexOf('=');
    const key = at > 0 ? entry.slice(0, at).trim() : '';
    if (!key) {
      errors.push(`"${entry}" is not key=value`);
      continue;
    }
    filters.push([key, entry.slice(at + 1).trim()]);
  }
  if (filters.length > MAX_ATTRIBUTE_FILTERS) errors.push(`at most ${MAX_ATTRIBUTE_FILTERS} attribute filters`);
  return { filters, errors };
}

/**
 * The query string of `GET /api/projects/{project}/spans` for a search, checked with the service's
 * own schema so a mistake shows beside the form instead of as a 400.
 */
export function spanSearchQuery(search: SpanSearch, page: { limit: number; cursor?: string | null }): { query: Record<string, string>; errors: string[] } {
  const query: Record<string, string> = { limit: String(page.limit) };
  if (page.cursor) query.cursor = page.cursor;
  if (search.name.trim()) query.name = search.name.trim();
  if (search.status) query.status = search.status;
  if (search.from) query.from = search.from;
  if (search.to) query.to = search.to;
  const { filters, errors } = parseAttributeFilters(search.attributes);
  for (const [key, value] of filters) query[`attr.${key}`] = value;
  const checked = tracing.SpansQuery.safeParse(query);
  if (!checked.success) for (const issue of checked.error.issues) errors.push(`${issue.path.join('.') || 'query'}: ${issue.message}`);
  if (search.from && search.to && Date.parse(search.from) > Date.parse(search.to)) errors.push('from is after to');
  return { query, errors };
}

/** The search as URL parameters (empty fields left out), so a search can be linked and reloaded. */
export function searchToParams(search: SpanSearch): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) if (value) params.set(key, value);
  return params;
}

export function searchFromParams(params: URLSearchParams): SpanSearch {
  const status = params.get('status') ?? '';
  return {
    name: params.get('name') ?? '',
    status: status === 'OK' || status === 'ERROR' || status === 'UNSET' ? status : '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    attributes: params.get('attributes') ?? '',
  };
}
