import { HealthResponse } from '@platform/contracts';
import { SERVICES, type Platform, type ServiceName } from '../../api';
import { platformErrorFrom } from '../../api/errors';

export interface Readiness {
  service: ServiceName;
  ready: boolean;
  /** Each dependency the service checks (postgres, redis, …) and whether it is up. */
  checks: Record<string, string>;
  /** Why it is not ready, when it cannot say so itself. */
  problem?: string;
}

/** Reads one `/health/ready` answer: a 503 still carries the checks, which say what is down. */
export function readinessFrom(service: ServiceName, status: number, bodyText: string): Readiness {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const health = HealthResponse.safeParse(json);
  if (health.success) {
    const ready = status === 200 && health.data.status === 'healthy';
    return { service, ready, checks: health.data.dependencies, ...(ready ? {} : { problem: status === 200 ? undefined : `answered ${status}` }) };
  }
  if (status === 200) return { service, ready: true, checks: {} };
  const error = platformErrorFrom(status, bodyText);
  return { service, ready: false, checks: {}, problem: `${status}: ${error.message}` };
}

export async function readinessOf(platform: Platform, service: ServiceName): Promise<Readiness> {
  try {
    const response = await platform.send(service, '/health/ready');
    return readinessFrom(service, response.status, await response.text());
  } catch (error) {
    return { service, ready: false, checks: {}, problem: (error as Error).message };
  }
}

export function readinessOfAll(platform: Platform): Promise<Readiness[]> {
  return Promise.all(SERVICES.map((service) => readinessOf(platform, service)));
}
