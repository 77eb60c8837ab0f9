import { z } from 'zod';
import { TeamRole } from '../token';

/** A team name: unique, shown to people, matched exactly by identity-provider role mappings. */
export const TeamName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$/, 'a team name is 1 to 100 letters, digits, spaces and ._/-');

export const CreateTeamRequest = z.object({ name: TeamName }).strict();

/** A team as a list shows it, with the caller's own role in it (null for an `auth:admin` outside it). */
export const Team = z.object({
  id: z.string(),
  name: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  role: TeamRole.nullable(),
});

export const TeamMember = z.object({
  userId: z.string(),
  username: z.string(),
  role: TeamRole,
  /** `manual` (set through the API) or `idp` (synced from identity-provider groups at sign-in). */
  source: z.enum(['manual', 'idp']),
  addedAt: z.string(),
});

export const TeamDetail = Team.extend({ members: z.array(TeamMember) });
export const TeamList = z.object({ teams: z.array(Team), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const TeamMemberParams = z.object({ id: z.uuid(), userId: z.uuid() });
export const SetTeamMemberRequest = z.object({ role: TeamRole }).strict();
