import type { MemberRow, TeamRow } from './teams.repository';

export const publicTeam = (team: TeamRow & { role: MemberRow['role'] | null }) => ({
  id: team.id,
  name: team.name,
  createdBy: team.createdBy,
  createdAt: team.createdAt.toISOString(),
  role: team.role,
});

export const publicMember = (member: MemberRow) => ({
  userId: member.userId,
  username: member.username,
  role: member.role,
  source: member.source,
  addedAt: member.createdAt.toISOString(),
});
