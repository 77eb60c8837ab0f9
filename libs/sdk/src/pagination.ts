import { unwrap, type FetchResult } from './errors';

/** The element type of a page's list (`items`, `agents`, `connections`, … whichever array it holds). */
export type ItemOf<Page> = { [K in keyof Page]-?: NonNullable<Page[K]> extends readonly (infer Item)[] ? Item : never }[keyof Page];

interface OffsetPage {
  total?: number;
}

/** The page's list: `items` when it has one, else its first array. */
function itemsOf(page: unknown): unknown[] {
  const record = (page ?? {}) as Record<string, unknown>;
  if (Array.isArray(record.items)) return record.items;
  return (Object.values(record).find(Array.isArray) as unknown[] | undefined) ?? [];
}

export interface PaginateOptions {
  /** Items per request (default 100; the services cap it at 500). */
  pageSize?: number;
  /** Start at this offset. */
  offset?: number;
  /** Stop after this many items. */
  max?: number;
}

/**
 * Every item of a `limit`/`offset` list (DESIGN.md: `{<items>, total, limit, offset}`), one request
 * per page as the loop asks for more:
 * `for await (const agent of paginate((page) => platform.registry.GET('/api/v1/agents', { params: { query: page } })))`.
 * An error answer throws a `PlatformError`.
 */
export async function* paginate<Page>(
  fetchPage: (page: { limit: number; offset: number }) => Promise<FetchResult<Page>>,
  options: PaginateOptions = {},
): AsyncGenerator<ItemOf<Page>, void, undefined> {
  const limit = options.pageSize ?? 100;
  let offset = options.offset ?? 0;
  let yielded = 0;
  for (;;) {
    const page = await unwrap(fetchPage({ limit, offset }));
    const items = itemsOf(page);
    for (const item of items) {
      if (options.max !== undefined && yielded >= options.max) return;
      yielded += 1;
      yield item as ItemOf<Page>;
    }
    offset += items.length;
    const total = (page as OffsetPage).total;
    if (!items.length || (typeof total === 'number' ? offset >= total : items.length < limit)) return;
  }
}

interface CursorPage {
  next_cursor?: string | null;
  nextCursor?: string | null;
}

/**
 * Every item of a cursor-paged list (`{<items>, next_cursor}`, tracing's spans):
 * `paginateCursor((cursor) => platform.tracing.GET('/api/projects/{project}/spans', { params: { path: { project }, query: { cursor, limit: 200 } } }))`.
 */
export async function* paginateCursor<Page>(
  fetchPage: (cursor: string | undefined) => Promise<FetchResult<Page>>,
  options: Pick<PaginateOptions, 'max'> = {},
): AsyncGenerator<ItemOf<Page>, void, undefined> {
  let cursor: string | undefined;
  let yielded = 0;
  for (;;) {
    const page = await unwrap(fetchPage(cursor));
    for (const item of itemsOf(page)) {
      if (options.max !== undefined && yielded >= options.max) return;
      yielded += 1;
      yield item as ItemOf<Page>;
    }
    const next = (page as CursorPage).next_cursor ?? (page as CursorPage).nextCursor;
    if (!next || next === cursor) return;
    cursor = next;
  }
}

/** Every item of an async iterator, in an array: `await collect(paginate(...))`. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
