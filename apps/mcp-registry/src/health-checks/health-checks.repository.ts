import type { Db } from '../database';

export interface CheckOutcome {
  id: string;
  health: string;
  ok: boolean;
  at: string;
  rt: number;
  err: string | null;
  up: string | null;
  failed: number;
  recent: boolean[];
  digest: string | null;
}

/** Health-check outcomes written onto their connections. */
export class HealthCheckRepository {
  constructor(private readonly db: Db) {}

  /**
   * Writes the outcomes in one statement (a batch of 50 is one round trip); a connection
   * disconnected meanwhile is left alone. Returns the connections written, with their new status.
   */
  recordOutcomes(values: CheckOutcome[]): Promise<Array<{ id: string; status: string }>> {
    return this.db.$queryRawUnsafe<Array<{ id: string; status: string }>>(
      `UPDATE "mcp-registry"."Connection" AS c SET
         "healthStatus" = v.health, "lastCheckAt" = v.at,
         -- Decided on the current row, so an operator's PATCH made during the probe stands.
         "status" = CASE WHEN NOT v.ok AND c.status = 'active' THEN 'error' WHEN v.ok AND c.status = 'error' THEN 'active' ELSE c.status END, "lastResponseTime" = v.rt,
         "lastError" = v.err, "upSince" = v.up, "checksPerformed" = c."checksPerformed" + 1,
         "failedChecks" = c."failedChecks" + v.failed, "recentChecks" = v.recent,
         "toolsDigest" = COALESCE(v.digest, c."toolsDigest"), "updatedAt" = v.at
       FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, health text, ok boolean, at timestamp(3), rt float8, err text, up timestamp(3), failed int, recent boolean[], digest text)
       WHERE c.id = v.id AND c.status <> 'disconnected'
       RETURNING c.id::text AS id, c.status AS status`,
      JSON.stringify(values),
    );
  }
}
