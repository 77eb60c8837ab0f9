import { mesh } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { SettingsService } from './settings.service';

const read = { permission: 'mesh:read' };
const admin = { permission: 'mesh:admin' };
const tags = ['config'];

export function settingsRoutes(api: ApiRouter, settings: SettingsService): void {
  const healthChecks = () => ({
    health_check_interval_ms: settings.value.health_check_interval_ms,
    health_check_timeout_ms: settings.value.health_check_timeout_ms,
  });
  api
    .route({
      method: 'get',
      path: '/config',
      summary: 'Mesh-wide settings (health checks, ejection, delivery, de-duplication)',
      tags,
      access: read,
      responses: { 200: { description: 'Settings', schema: mesh.MeshSettings } },
      handler: () => settings.value,
    })
    .route({
      method: 'put',
      path: '/config',
      summary: 'Change some settings; every node applies them',
      tags,
      access: admin,
      body: mesh.MeshSettingsBody,
      responses: { 200: { description: 'Settings now', schema: mesh.MeshSettings }, 400: { description: 'Unknown key or bad value' } },
      handler: (req) => settings.update(req.valid.body),
    })
    .route({
      method: 'get',
      path: '/config/health-checks',
      summary: 'Health check interval and timeout',
      tags,
      access: read,
      responses: { 200: { description: 'Health check settings', schema: mesh.HealthChecksConfig } },
      handler: healthChecks,
    })
    .route({
      method: 'put',
      path: '/config/health-checks',
      summary: 'Change the health check interval and timeout',
      tags,
      access: admin,
      body: mesh.HealthChecksConfigBody,
      responses: { 200: { description: 'Health check settings now', schema: mesh.HealthChecksConfig }, 400: { description: 'Unknown key or bad value' } },
      handler: async (req) => {
        await settings.update(req.valid.body);
        return healthChecks();
      },
    });
}
