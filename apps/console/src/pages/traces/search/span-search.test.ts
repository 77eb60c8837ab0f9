import { EMPTY_SEARCH, parseAttributeFilters, searchFromParams, searchToParams, spanSearchQuery } from './span-search';

describe('span search', () => {
  it('reads attribute filters as key=value, one a line or comma-separated, values may hold =', () => {
    expect(parseAttributeFilters('http.method=GET\n  gen_ai.system = openai , q=a=b\n\n')).toEqual({
      filters: [
        ['http.method', 'GET'],
        ['gen_ai.system', 'openai'],
        ['q', 'a=b'],
      ],
      errors: [],
    });
    expect(parseAttributeFilters('novalue\n=x').errors).toEqual(['"novalue" is not key=value', '"=x" is not key=value']);
    const many = Array.from({ length: 11 }, (_, i) => `k${i}=v`).join('\n');
    expect(parseAttributeFilters(many).errors).toEqual(['at most 10 attribute filters']);
  });

  it('builds the spans query of the tracing service', () => {
    const { query, errors } = spanSearchQuery(
      { name: ' POST /api ', status: 'ERROR', from: '2026-11-27T10:00:00.000Z', to: '2026-11-27T11:00:00.000Z', attributes: 'http.status_code=500' },
      { limit: 100, cursor: 'abc' },
    );
    expect(errors).toEqual([]);
    expect(query).toEqual({
      limit: '100',
      cursor: 'abc',
      name: 'POST /api',
      status: 'ERROR',
      from: '2026-11-27T10:00:00.000Z',
      to: '2026-11-27T11:00:00.000Z',
      'attr.http.status_code': '500',
    });
    expect(spanSearchQuery(EMPTY_SEARCH, { limit: 50 }).query).toEqual({ limit: '50' });
  });

  it('says what is wrong with a search before asking the service', () => {
    expect(spanSearchQuery({ ...EMPTY_SEARCH, from: 'yesterday' }, { limit: 50 }).errors).toEqual([expect.stringMatching(/^from: /)]);
    expect(spanSearchQuery({ ...EMPTY_SEARCH, from: '2026-11-27T12:00:00Z', to: '2026-11-27T11:00:00Z' }, { limit: 50 }).errors).toEqual(['from is after to']);
    expect(spanSearchQuery({ ...EMPTY_SEARCH, name: 'x'.repeat(1025) }, { limit: 50 }).errors).toEqual([expect.stringMatching(/^name: /)]);
  });

  it('round-trips through URL parameters, ignoring an unknown status', () => {
    const search = { name: 'llm', status: 'OK' as const, from: '', to: '', attributes: 'a=1\nb=2' };
    expect(searchFromParams(searchToParams(search))).toEqual(search);
    expect(searchToParams(search).toString()).toBe('name=llm&status=OK&attributes=a%3D1%0Ab%3D2');
    expect(searchFromParams(new URLSearchParams('status=weird')).status).toBe('');
  });
});
