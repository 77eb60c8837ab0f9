import type { UserRow } from './users.repository';

/** A user as the API shows it (never the password hash). */
export function publicUser(user: UserRow) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    roles: user.roles,
    permissions: user.permissions,
    disabled: user.disabled,
    idpProvider: user.idpProvider,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
  };
}
