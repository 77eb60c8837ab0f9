import type { Db } from '../database';

const counts = (rows: Array<{ key: string; count: number }>) => Object.fromEntries(rows.map((row) => [row.key, row.count]));

/** Aggregates over the master's tables for `/monitoring/metrics`. */
export class MonitoringRepository {
  constructor(private readonly db: Db) {}

  async figures() {
    const [agents, mirrored, executions, certifications, peers] = await Promise.all([
      this.db.$queryRaw<
        Array<{ key: string; count: number }>
      >`SELECT "status" AS key, count(*)::int AS count FROM "master"."Agent" WHERE "origin" = 'local' GROUP BY 1`,
      this.db.agent.count({ where: { NOT: { origin: 'local' } } }),
      this.db.$queryRaw<Array<{ key: string; count: number }>>`SELECT "state" AS key, count(*)::int AS count FROM "master"."Execution" GROUP BY 1`,
      this.db.$queryRaw<Array<{ key: string; count: number }>>`SELECT "status" AS key, count(*)::int AS count FROM "master"."Certification" GROUP BY 1`,
      this.db.$queryRaw<Array<{ key: string; count: number }>>`SELECT "state" AS key, count(*)::int AS count FROM "master"."Peer" GROUP BY 1`,
    ]);
    const total = (rows: Array<{ count: number }>) => rows.reduce((sum, row) => sum + row.count, 0);
    return {
      agents: { total: total(agents), byStatus: counts(agents), mirrored },
      executions: { total: total(executions), byState: counts(executions) },
      certifications: { total: total(certifications), byStatus: counts(certifications) },
      federation: { peers: total(peers), byState: counts(peers) },
    };
  }
}
