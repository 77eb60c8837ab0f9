import type { ReadScope } from '@platform/http';
import { scopeWhere } from '../connections/connections.repository';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

const CANDIDATE = {
  id: true,
  name: true,
  protocol: true,
  capabilityNames: true,
  healthStatus: true,
  upSince: true,
  endpoint: true,
  capacity: true,
  lastResponseTime: true,
} as const;
export type CandidateRow = {
  id: string;
  name: string;
  protocol: string;
  capabilityNames: string[];
  healthStatus: string;
  upSince: Date | null;
  endpoint: unknown;
  capacity: number;
  lastResponseTime: number | null;
};
/** Which connections a discovery request matches. */
export type CandidateFilter = Prisma.ConnectionWhereInput;

/** The connections a discovery request may be offered. */
export class DiscoveryRepository {
  constructor(private readonly db: Db) {}

  /** The connections a caller may be offered: those they may read. */
  visible(scope: ReadScope): CandidateFilter {
    return scopeWhere(scope);
  }

  count(where: CandidateFilter): Promise<number> {
    return this.db.connection.count({ where });
  }

  /** Every match, or only the matches among `ids`. */
  candidates(where: CandidateFilter, ids?: string[]): Promise<CandidateRow[]> {
    return this.db.connection.findMany({ where: ids ? { AND: [where, { id: { in: ids } }] } : where, select: CANDIDATE });
  }

  /** The `take` matches with the lowest response time, leaving out `busy`. */
  fastestIdle(where: CandidateFilter, busy: string[], take: number): Promise<CandidateRow[]> {
    return this.db.connection.findMany({
      where: busy.length > 0 ? { AND: [where, { id: { notIn: busy } }] } : where,
      select: CANDIDATE,
      orderBy: [{ lastResponseTime: { sort: 'asc', nulls: 'last' } }, { name: 'asc' }],
      take,
    });
  }
}
