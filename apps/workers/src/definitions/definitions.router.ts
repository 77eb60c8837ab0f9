import { workers } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { DefinitionsService } from './definitions.service';

/** Definitions and starting runs: `POST /workflows`, versions, pin, reload. */
export function definitionRoutes(api: ApiRouter, service: DefinitionsService): void {
  api.route({
    method: 'post',
    path: '/workflows',
    summary: 'Register a workflow definition and start a run',
    description:
      'Checks the steps (unique ids, known dependencies, no cycle, bounded size), registers them as a version of `name` (an identical step list is the same version), and starts a run of the pinned version of `name` if there is one, else of the posted steps (or the latest version when `steps` is omitted). Answers 202 with the run: its `workflow_id` and state `pending`. 503 while the service is paused.',
    tags: ['workflows'],
    access: { permission: 'workflows:write' },
    body: workers.StartWorkflowBody,
    responses: {
      202: { description: 'The run was accepted', schema: workers.StartedRun },
      400: { description: 'Invalid definition (a cycle is named in the message)' },
      403: { description: "Only a viewer of the name's team, or not an editor of the posted team" },
      404: { description: 'No steps posted and no stored definition of that name, or the name belongs to a definition the caller cannot see' },
      413: { description: 'Definition too large' },
      503: { description: 'Paused' },
    },
    handler: (req) => service.start(req.valid.body, req.auth!),
  });
  api.route({
    method: 'get',
    path: '/workflows/versions',
    summary: 'Definition versions',
    tags: ['workflows'],
    access: { permission: 'workflows:read' },
    query: workers.VersionsQuery,
    responses: { 200: { description: 'A page of versions, newest first per name', schema: workers.VersionPage } },
    handler: (req) => service.versions(req.valid.query.name, req.auth!, req.valid.query.limit, req.valid.query.offset),
  });
  api.route({
    method: 'post',
    path: '/workflows/reload',
    summary: 'Reload definitions from WORKERS_DEFINITIONS_DIR',
    description:
      "YAML or JSON files, each one definition, a list of them, or `{workflows: [...]}`. All or nothing: one bad file changes nothing and the answer lists each bad file's errors.",
    tags: ['workflows'],
    access: { permission: 'workflows:admin' },
    responses: {
      200: { description: 'Reloaded', schema: workers.ReloadResult },
      400: { description: 'Bad files, nothing changed' },
      409: { description: 'No directory configured' },
    },
    handler: (req) => service.reload(req.auth!),
  });
  api.route({
    method: 'post',
    path: '/workflows/:workflow_id/pin',
    summary: 'Pin the version new runs use',
    description: '`workflow_id` is the definition name (or the id of one of its runs). New runs of that name use the pinned version.',
    tags: ['workflows'],
    access: { permission: 'workflows:admin' },
    params: workers.PinParams,
    query: workers.PinQuery,
    responses: {
      200: { description: 'Pinned', schema: workers.Pin },
      403: { description: "Only a viewer of the name's team" },
      404: { description: 'No such definition or version' },
    },
    handler: (req) => service.pin(req.valid.params.workflow_id, req.valid.query.version, req.auth!),
  });
}
