import { ApiError } from '@platform/http';
import os from 'node:os';
import path from 'node:path';
import { assertCommandAllowed, CommandNotFoundError, defaultSearchPath, prepareLaunch, removeWorkDir, resolveCommand } from '../src/supervisor/stdio-launch';

const policy = {
  allowedCommands: ['mcp-server-everything', 'node'],
  searchPath: defaultSearchPath(),
  memoryMb: 256,
  cpuSeconds: 60,
  workRoot: path.join(os.tmpdir(), 'mcp-registry-unit'),
};

describe('stdio launch policy', () => {
  it('allows listed commands by name or by the program they resolve to', () => {
    expect(() => assertCommandAllowed('node', policy)).not.toThrow();
    expect(() => assertCommandAllowed(process.execPath, policy)).not.toThrow();
  });

  it('refuses anything else with a 400 naming the allow-list', () => {
    for (const command of ['sh', '/bin/sh', '../node', 'node_modules/.bin/mcp-server-everything']) {
      let error: unknown;
      try {
        assertCommandAllowed(command, policy);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: 'command_not_allowed' });
    }
  });

  it('does not resolve relative paths, only names on the PATH and absolute paths', () => {
    expect(resolveCommand('node', policy.searchPath)).toBe(path.join(path.dirname(process.execPath), 'node'));
    expect(resolveCommand('./node', policy.searchPath)).toBeUndefined();
  });

  it('wraps the program in its own session with limits, a fresh directory and a minimal environment', () => {
    const launch = prepareLaunch('conn-1', 'node', ['server.js'], policy);
    try {
      expect(launch.command).toMatch(/setsid$/);
      expect(launch.args).toEqual([expect.stringMatching(/prlimit$/), `--data=${256 * 1024 * 1024}`, '--cpu=60', '--', launch.program, 'server.js']);
      expect(Object.keys(launch.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'TMPDIR']);
      expect(launch.env.HOME).toBe(launch.cwd);
      expect(launch.cwd.startsWith(policy.workRoot)).toBe(true);
    } finally {
      removeWorkDir(launch.cwd, policy.workRoot);
    }
  });

  it('fails clearly for an allowed command that is not installed', () => {
    expect(() => prepareLaunch('conn-2', 'mcp-nowhere', [], { ...policy, allowedCommands: ['mcp-nowhere'] })).toThrow(CommandNotFoundError);
  });
});
