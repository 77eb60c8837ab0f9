import { workers } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { ControlRepository } from './control.repository';

/** `POST /pause` and `/resume`: stop and resume accepting runs; running steps go on. */
export function controlRoutes(api: ApiRouter, control: ControlRepository): void {
  const view = (state: { paused: boolean; changedAt: Date }) => ({ paused: state.paused, changed_at: state.changedAt.toISOString() });
  api.route({
    method: 'post',
    path: '/pause',
    summary: 'Stop accepting workflow runs',
    description: 'While paused, `POST /workflows` answers 503; runs already started go on to their end.',
    tags: ['control'],
    access: { permission: 'workers:admin' },
    responses: { 200: { description: 'Paused', schema: workers.PauseState } },
    handler: async () => view(await control.setPaused(true)),
  });
  api.route({
    method: 'post',
    path: '/resume',
    summary: 'Accept workflow runs again',
    tags: ['control'],
    access: { permission: 'workers:admin' },
    responses: { 200: { description: 'Accepting runs', schema: workers.PauseState } },
    handler: async () => view(await control.setPaused(false)),
  });
}
