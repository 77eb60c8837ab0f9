import { auth, PageQuery } from '@platform/contracts';
import { ApiRouter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import { originOf } from '../audit/audit.service';
import type { Teams } from './teams.service';

/** Teams and their members; what each caller may do is decided by Teams (membership, not a permission). */
export function teamsRouter(verifier: TokenVerifier, teams: Teams): ApiRouter {
  return new ApiRouter(verifier)
    .route({
      method: 'post',
      path: '/teams',
      summary: 'Create a team (the creator becomes its admin)',
      tags: ['teams'],
      access: 'authenticated',
      body: auth.CreateTeamRequest,
      responses: {
        201: { description: 'Created', schema: auth.Team },
        403: { description: 'The caller is not a user (a service token)' },
        409: { description: 'The name is taken' },
      },
      handler: (req) => teams.create(req.valid.body.name, req.auth!, originOf(req)),
    })
    .route({
      method: 'get',
      path: '/teams',
      summary: "The caller's teams (every team for auth:admin)",
      tags: ['teams'],
      access: 'authenticated',
      query: PageQuery,
      responses: { 200: { description: 'A page of teams', schema: auth.TeamList } },
      handler: (req) => teams.list(req.valid.query, req.auth!),
    })
    .route({
      method: 'get',
      path: '/teams/:id',
      summary: 'A team with its members (for its members and auth:admin)',
      tags: ['teams'],
      access: 'authenticated',
      params: auth.IdParams,
      responses: { 200: { description: 'The team', schema: auth.TeamDetail }, 404: { description: 'No such team, or not a member' } },
      handler: (req) => teams.get(req.valid.params.id, req.auth!),
    })
    .route({
      method: 'put',
      path: '/teams/:id/members/:userId',
      summary: "Add a member or change a member's role (team admin or auth:admin)",
      tags: ['teams'],
      access: 'authenticated',
      params: auth.TeamMemberParams,
      body: auth.SetTeamMemberRequest,
      responses: {
        200: { description: 'The membership', schema: auth.TeamMember },
        403: { description: 'A member, but not an admin of the team' },
        404: { description: 'No such team (or not a member), or no such user' },
        409: { description: 'It would leave the team without an admin' },
      },
      handler: (req) => teams.setMember(req.valid.params.id, req.valid.params.userId, req.valid.body.role, req.auth!, originOf(req)),
    })
    .route({
      method: 'delete',
      path: '/teams/:id/members/:userId',
      summary: 'Remove a member (team admin or auth:admin; any member may leave)',
      tags: ['teams'],
      access: 'authenticated',
      params: auth.TeamMemberParams,
      responses: {
        204: { description: 'Removed' },
        403: { description: 'A member, but not an admin of the team' },
        404: { description: 'No such team (or not a member), or the user is not a member' },
        409: { description: 'It would leave the team without an admin' },
      },
      handler: async (req) => {
        await teams.removeMember(req.valid.params.id, req.valid.params.userId, req.auth!, originOf(req));
      },
    })
    .route({
      method: 'delete',
      path: '/teams/:id',
      summary: 'Delete a team (team admin or auth:admin)',
      tags: ['teams'],
      access: 'authenticated',
      params: auth.IdParams,
      responses: { 204: { description: 'Deleted' }, 403: { description: 'A member, but not an admin of the team' }, 404: { description: 'No such team' } },
      handler: async (req) => {
        await teams.delete(req.valid.params.id, req.auth!, originOf(req));
      },
    });
}
