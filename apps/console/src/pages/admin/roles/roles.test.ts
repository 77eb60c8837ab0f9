import type { Team, User } from '../auth-api';
import { mappedTeams, summarizeRoles } from './roles';

const user = (username: string, roles: string[], permissions: string[]): User => ({
  id: username,
  username,
  email: null,
  name: null,
  roles,
  permissions,
  disabled: false,
  idpProvider: null,
  createdAt: '2026-01-01T00:00:00Z',
  lastLoginAt: null,
});

describe('roles', () => {
  it('sums who holds each role and the permissions that come with it', () => {
    const roles = summarizeRoles([
      user('a', ['admin'], ['*']),
      user('b', ['developer', 'user'], ['workflows:write', 'agents:read']),
      user('c', ['user'], ['agents:read']),
    ]);
    expect(roles).toEqual([
      { role: 'user', users: 2, permissions: ['agents:read', 'workflows:write'] },
      { role: 'admin', users: 1, permissions: ['*'] },
      { role: 'developer', users: 1, permissions: ['agents:read', 'workflows:write'] },
    ]);
  });

  it('lists the teams a role mapping created, with their provider', () => {
    const team = (name: string, createdBy: string): Team => ({ id: name, name, createdBy, createdAt: '2026-01-01T00:00:00Z', role: null });
    expect(mappedTeams([team('platform/admins', 'idp:gitlab'), team('mine', 'u1')])).toEqual([{ ...team('platform/admins', 'idp:gitlab'), provider: 'gitlab' }]);
  });
});
