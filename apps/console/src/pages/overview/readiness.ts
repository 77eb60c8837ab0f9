import { HealthResponse } from '@platform/contracts';
import { PlatformError, SERVICES, type Platform, type ServiceName } from '../../api';

export interface Readiness {
  service: ServiceName;
  ready: boolean;
  /** Each dependency the service checks (postgres, redis, …) and whether it is up. */
  checks: Record<string, string>;
  /** Why it is not ready, when it says or cannot be reached. */
  problem?: string;
}

/** One service's `/health/ready`: a 503 still carries its checks, so it is read, not thrown. */
export async function readinessOf(platform: Platform, service: ServiceName): Promise<Readiness> {
  try {
    const body = await platform.request(service, '/health/ready');
    const parsed = HealthResponse.safeParse(body);
    return parsed.success
      ? { service, ready: parsed.data.status === 'healthy', checks: parsed.data.dependencies }
      : { service, ready: true, checks: {} };
  } catch (error) {
    if (error instanceof PlatformError) {
      const parsed = HealthResponse.safeParse(error.details);
      return { service, ready: false, checks: parsed.success ? parsed.data.dependencies : {}, problem: `${error.status}: ${error.message}` };
    }
    return { service, ready: false, checks: {}, problem: String(error) };
  }
}

export function readinessOfAll(platform: Platform): Promise<Readiness[]> {
  return Promise.all(SERVICES.map((service) => readinessOf(platform, service)));
}
