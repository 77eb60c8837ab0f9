import { z } from 'zod';

const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

/** The console's settings at the gateway: where its files are, its session and sign-in. */
export const consoleConfig = {
  /** The built console (`index.html`, `assets/`); `dist/apps/console` of the repository by default. */
  GATEWAY_CONSOLE_DIR: z.string().optional(),
  /** `client_id` of the console's sessions at auth. */
  GATEWAY_CONSOLE_CLIENT_ID: z.string().min(1).max(128).default('console'),
  /** How long the session cookie lives, in seconds (auth's refresh tokens live 30 days by default). */
  GATEWAY_CONSOLE_SESSION_MAX_AGE: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 24 * 3600),
  /** Identity providers configured at auth that the console offers (comma-separated names). */
  GATEWAY_CONSOLE_OAUTH_PROVIDERS: list,
  /**
   * Other origins whose state-changing console calls are accepted. Unset outside production: the
   * console's Vite dev server (`http://127.0.0.1:4200`, `http://localhost:4200`), which proxies to the gateway.
   */
  GATEWAY_CONSOLE_ALLOWED_ORIGINS: list,
};

export type ConsoleConfig = {
  GATEWAY_CONSOLE_DIR?: string;
  GATEWAY_CONSOLE_CLIENT_ID: string;
  GATEWAY_CONSOLE_SESSION_MAX_AGE: number;
  GATEWAY_CONSOLE_OAUTH_PROVIDERS: string[];
  GATEWAY_CONSOLE_ALLOWED_ORIGINS: string[];
  GATEWAY_PUBLIC_URL: string;
  AUTH_URL: string;
  GATEWAY_UPSTREAM_TIMEOUT_MS: number;
  NODE_ENV: string;
};

/** The console's dev server (`nx run console:serve`), trusted outside production when nothing else is configured. */
const DEV_SERVER_ORIGINS = ['http://127.0.0.1:4200', 'http://localhost:4200'];

export const allowedOrigins = (config: Pick<ConsoleConfig, 'GATEWAY_CONSOLE_ALLOWED_ORIGINS' | 'NODE_ENV'>): string[] =>
  config.GATEWAY_CONSOLE_ALLOWED_ORIGINS.length || config.NODE_ENV === 'production' ? config.GATEWAY_CONSOLE_ALLOWED_ORIGINS : DEV_SERVER_ORIGINS;
