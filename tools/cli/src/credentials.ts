import type { SessionStore, SessionTokens } from '@platform/sdk';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `$XDG_CONFIG_HOME/platform/credentials.json`, else `~/.config/platform/credentials.json`. */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'platform', 'credentials.json');
}

type CredentialsDocument = Record<string, SessionTokens>;

function read(file: string): CredentialsDocument {
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as CredentialsDocument) : {};
  } catch {
    return {};
  }
}

/** Written whole to a temporary file of mode 0600 and renamed over, so no reader sees half of it. */
function write(file: string, document: CredentialsDocument): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!Object.keys(document).length) {
    rmSync(file, { force: true });
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** The tokens of one platform (by URL) in the user's credentials file, beside those of others. */
export function fileStore(url: string, file = credentialsFile()): SessionStore {
  return {
    load: () => read(file)[url],
    save: (tokens) => write(file, { ...read(file), [url]: tokens }),
    clear: () => {
      const { [url]: _removed, ...rest } = read(file);
      write(file, rest);
    },
  };
}
