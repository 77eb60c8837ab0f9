import { ApiError } from './errors';
import { inReadScope, OwnershipRule, readScopeWhere, type Caller } from './ownership';

const rule = OwnershipRule.of('Agent', 'mesh:admin');
const alice: Caller = { sub: 'alice', permissions: ['mesh:read', 'mesh:write'] };
const viewer: Caller = { sub: 'vera', permissions: ['mesh:read'], teams: [{ id: 'team-a', role: 'viewer' }] };
const editor: Caller = { sub: 'ed', permissions: ['mesh:write'], teams: [{ id: 'team-a', role: 'editor' }] };
const bob: Caller = { sub: 'bob', permissions: ['mesh:read', 'mesh:write'], teams: [{ id: 'team-b', role: 'admin' }] };
const admin: Caller = { sub: 'root', permissions: ['mesh:admin'] };
const agent = { id: 'a1', owner: 'alice', team: 'team-a' };

const statusOf = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return (error as ApiError).status;
  }
};

describe('OwnershipRule', () => {
  it('lets the owner, team members and the admin read; a stranger gets the answer of a missing resource', () => {
    for (const caller of [alice, viewer, editor, admin]) expect(statusOf(() => rule.readable(caller, agent, 'a1'))).toBe('ok');
    expect(statusOf(() => rule.readable(bob, agent, 'a1'))).toBe(404);
    expect(statusOf(() => rule.readable(undefined, agent, 'a1'))).toBe(404);
    expect(statusOf(() => rule.readable(alice, null, 'a1'))).toBe(404);
    try {
      rule.readable(bob, agent, 'a1');
    } catch (error) {
      expect((error as ApiError).message).toBe('Agent a1 not found');
    }
  });

  it('lets the owner, a team editor and the admin write; a viewer gets 403, a stranger 404', () => {
    for (const caller of [alice, editor, admin]) expect(statusOf(() => rule.writable(caller, agent, 'a1'))).toBe('ok');
    expect(statusOf(() => rule.writable(viewer, agent, 'a1'))).toBe(403);
    expect(statusOf(() => rule.writable(bob, agent, 'a1'))).toBe(404);
  });

  it('leaves a resource without an owner to the admin alone', () => {
    const orphan = { owner: null, team: null };
    expect(statusOf(() => rule.readable(alice, orphan, 'x'))).toBe(404);
    expect(statusOf(() => rule.writable(admin, orphan, 'x'))).toBe('ok');
  });

  it('a team role in another team grants nothing', () => {
    expect(rule.canRead(bob, agent)).toBe(false);
    expect(rule.canWrite({ ...bob, teams: [{ id: 'team-a', role: 'viewer' }] }, agent)).toBe(false);
  });

  it('scopes lists to what the caller may read', () => {
    expect(rule.readScope(admin)).toEqual({ all: true });
    const scope = rule.readScope(viewer);
    expect(scope).toEqual({ all: false, owner: 'vera', teams: ['team-a'] });
    expect(inReadScope(scope, agent)).toBe(true);
    expect(inReadScope(rule.readScope(bob), agent)).toBe(false);
    expect(inReadScope(rule.readScope(alice), { owner: null })).toBe(false);
    expect(readScopeWhere(scope, { owner: 'ownerSub', team: 'teamId' })).toEqual({ OR: [{ ownerSub: 'vera' }, { teamId: { in: ['team-a'] } }] });
    expect(readScopeWhere(rule.readScope(alice))).toEqual({ OR: [{ owner: 'alice' }] });
    expect(readScopeWhere({ all: true })).toEqual({});
  });

  it('records the caller as owner and takes a team only from its editors', () => {
    expect(rule.ownerFor(alice)).toEqual({ owner: 'alice', team: null });
    expect(rule.ownerFor(editor, 'team-a')).toEqual({ owner: 'ed', team: 'team-a' });
    expect(statusOf(() => rule.ownerFor(viewer, 'team-a'))).toBe(403);
    expect(statusOf(() => rule.ownerFor(alice, 'team-a'))).toBe(403);
    expect(rule.ownerFor(admin, 'team-z')).toEqual({ owner: 'root', team: 'team-z' });
  });
});
