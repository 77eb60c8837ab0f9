import { ApiRouter, inReadScope, OwnershipRule, type Owned } from '@platform/http';
import { defineService } from '@platform/service-kit';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { startTestService } from './service-harness';
import { tenancyCallers, tenancyViolations, unclassifiedRoutes, unservedRoutes, type TenancyCase, type TenancyTable } from './tenancy';

/** Notes kept in the process: the smallest service with owned resources, one route of it leaky. */
const notesService = defineService({
  name: 'tenancy-test',
  version: '0.0.1',
  port: 3998,
  openapi: { title: 'Tenancy test' },
  config: {},
  async build(infra) {
    const notes = new Map<string, Owned & { id: string; text: string }>();
    const rule = OwnershipRule.of('Note', 'notes:admin');
    const api = new ApiRouter(await infra.verifier());
    const id = z.object({ id: z.string() });
    const access = { permission: 'notes:use' };
    const responses = { 200: { description: 'A note' } };
    api
      .route({
        method: 'post',
        path: '/notes',
        summary: 'Create',
        access,
        body: z.object({ text: z.string(), team: z.string().optional() }),
        responses: { 201: { description: 'Created' } },
        handler: (req) => {
          const note = { id: randomUUID(), text: req.valid.body.text, ...rule.ownerFor(req.auth!, req.valid.body.team) };
          notes.set(note.id, note);
          return note;
        },
      })
      .route({
        method: 'get',
        path: '/notes',
        summary: 'List',
        access,
        responses,
        handler: (req) => [...notes.values()].filter((note) => inReadScope(rule.readScope(req.auth), note)),
      })
      .route({
        method: 'get',
        path: '/notes/:id',
        summary: 'Read',
        access,
        params: id,
        responses,
        handler: (req) => rule.readable(req.auth, notes.get(req.valid.params.id), req.valid.params.id),
      })
      .route({
        method: 'delete',
        path: '/notes/:id',
        summary: 'Delete',
        access,
        params: id,
        responses: { 204: { description: 'Deleted' } },
        handler: (req) => void notes.delete(rule.writable(req.auth, notes.get(req.valid.params.id), req.valid.params.id).id),
      })
      // Forgets the rule: any caller may change any note.
      .route({ method: 'put', path: '/notes/:id', summary: 'Leaky update', access, params: id, responses, handler: (req) => notes.get(req.valid.params.id) });
    return { routers: [{ basePath: '', router: api }] };
  },
});

type Note = { id: string };

describe('the tenancy table', () => {
  let service: Pick<Awaited<ReturnType<typeof startTestService>>, 'url' | 'issuer' | 'stop'>;
  let table: TenancyTable<Note>;
  const routes: Record<string, TenancyCase<Note>> = {
    'POST /notes': { exempt: 'creates a note of the caller' },
    'GET /notes': { access: 'list', request: () => ({ path: '/notes' }), lists: (body, note) => (body as Note[]).some((listed) => listed.id === note.id) },
    'GET /notes/{id}': { access: 'read', request: (note) => ({ path: `/notes/${note.id}` }) },
    'DELETE /notes/{id}': { access: 'write', request: (note) => ({ path: `/notes/${note.id}` }) },
    'PUT /notes/{id}': { access: 'write', request: (note) => ({ path: `/notes/${note.id}` }) },
  };

  beforeAll(async () => {
    service = await startTestService(notesService);
    const callers = tenancyCallers(service.issuer, { permissions: ['notes:use'], admin: 'notes:admin' });
    table = {
      baseUrl: service.url,
      callers,
      create: async ({ owner, team }) => {
        const response = await fetch(`${service.url}/notes`, {
          method: 'POST',
          headers: { authorization: owner.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'mine' }),
        });
        const note = (await response.json()) as Note & { owner: string };
        // The owner is no editor of the team in the table: share it as the admin would.
        expect(note.owner).toBe(owner.sub);
        const shared = await fetch(`${service.url}/notes`, {
          method: 'POST',
          headers: {
            authorization: service.issuer.bearer(['notes:use'], { sub: owner.sub, teams: [{ id: team, role: 'editor' }] }),
            'content-type': 'application/json',
          },
          body: JSON.stringify({ text: 'shared', team }),
        });
        return (await shared.json()) as Note;
      },
    };
  });
  afterAll(() => service.stop());

  it('passes the routes that keep the rule', async () => {
    for (const route of ['GET /notes', 'GET /notes/{id}', 'DELETE /notes/{id}', 'POST /notes']) {
      expect(await tenancyViolations(table, route, routes[route])).toEqual([]);
    }
  });

  it('names every caller that a leaky route lets through', async () => {
    const violations = await tenancyViolations(table, 'PUT /notes/{id}', routes['PUT /notes/{id}']);
    expect(violations.map((violation) => violation.split(':')[0])).toEqual(['viewer', 'stranger']);
  });

  it('finds served routes the table forgets, and table rows no route serves', async () => {
    const { ['PUT /notes/{id}']: _forgotten, ...partial } = routes;
    expect(await unclassifiedRoutes(service.url, partial)).toEqual(['PUT /notes/{id}']);
    expect(await unservedRoutes(service.url, { ...routes, 'GET /gone': { exempt: 'renamed' } })).toEqual(['GET /gone']);
    expect(await unclassifiedRoutes(service.url, routes)).toEqual([]);
  });
});
