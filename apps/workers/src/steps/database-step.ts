import { Pool } from 'pg';
import { StepFailure, type StepContext } from './step-context';

export interface Datasource {
  url: string;
  /** Statements run in a read-only transaction unless the datasource allows writes. */
  writable: boolean;
}

const MAX_ROWS = 1000;

/**
 * Datasources named in configuration (WORKERS_DATASOURCES) for `database` steps: one small pool
 * each. A datasource pointing at the platform's own database is refused: steps never read or
 * write the platform's schemas.
 */
export class Datasources {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly sources: Record<string, Datasource>,
    platformDatabaseUrl: string,
  ) {
    for (const [name, source] of Object.entries(sources)) {
      if (sameDatabase(source.url, platformDatabaseUrl))
        throw new Error(`WORKERS_DATASOURCES.${name} points at the platform's own database; name another database`);
    }
  }

  names(): string[] {
    return Object.keys(this.sources);
  }

  async run(context: StepContext, timeoutMs: number): Promise<{ rowCount: number; rows: unknown[]; truncated: boolean }> {
    const { spec } = context;
    const source = this.sources[spec.datasource!];
    if (!source) throw new StepFailure(`unknown datasource "${spec.datasource}"`, undefined, false);
    let pool = this.pools.get(spec.datasource!);
    if (!pool) {
      pool = new Pool({ connectionString: source.url, max: 4, connectionTimeoutMillis: 5000, application_name: 'workers-database-step' });
      pool.on('error', () => undefined);
      this.pools.set(spec.datasource!, pool);
    }
    const client = await pool.connect();
    let broken = false;
    const abort = () => {
      broken = true;
      // Ends the connection, which ends the statement on the server.
      client.release(true);
    };
    context.signal.addEventListener('abort', abort, { once: true });
    try {
      await client.query(source.writable ? 'BEGIN' : 'BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
      const result = await client.query({ text: spec.statement!, values: (spec.params ?? []) as unknown[] });
      await client.query('COMMIT');
      const rows = result.rows ?? [];
      return { rowCount: result.rowCount ?? rows.length, rows: rows.slice(0, MAX_ROWS), truncated: rows.length > MAX_ROWS };
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      await client.query('ROLLBACK').catch(() => undefined);
      const pgError = error as { code?: string; message?: string };
      // Statement errors (syntax, permissions, read-only) do not heal on a retry; connection errors might.
      const retryable = !pgError.code || pgError.code.startsWith('08') || pgError.code === '57P01';
      throw new StepFailure(`database error${pgError.code ? ` ${pgError.code}` : ''}: ${pgError.message ?? String(error)}`, undefined, retryable);
    } finally {
      context.signal.removeEventListener('abort', abort);
      if (!broken) client.release();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.end().catch(() => undefined)));
  }
}

function sameDatabase(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const port = (url: URL) => url.port || '5432';
    const host = (url: URL) => (url.hostname === 'localhost' ? '127.0.0.1' : url.hostname);
    return host(x) === host(y) && port(x) === port(y) && x.pathname === y.pathname;
  } catch {
    return false;
  }
}
