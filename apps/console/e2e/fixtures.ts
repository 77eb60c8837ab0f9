import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';

/**
 * What every console spec file imports: `test` (its baseURL is the gateway of the platform that
 * global-setup.ts booted), `expect`, the URLs and admin of that platform, and helpers to sign in,
 * to create users with chosen permissions and to check accessibility.
 */
export interface Credentials {
  username: string;
  password: string;
}

function fromEnv<T>(name: string): T {
  const raw = process.env[name];
  if (!raw)
    throw new Error(`${name} is not set: the console's browser tests run through apps/console/e2e/playwright.config.ts, whose global setup boots the platform`);
  return JSON.parse(raw) as T;
}

/** Each service's base URL on the booted platform, by app name (`gateway`, `auth`, …). */
export const platformUrls = (): Record<string, string> => fromEnv<Record<string, string>>('CONSOLE_E2E_URLS');
export const gatewayUrl = (): string => platformUrls().gateway;
export const adminCredentials = (): Credentials => fromEnv<Credentials>('CONSOLE_E2E_ADMIN');

export const test = base.extend({
  baseURL: async ({}, use) => use(gatewayUrl()), // eslint-disable-line no-empty-pattern
});
export { expect };

/**
 * Signs in through the sign-in page (the one shown, with its `next`, or /sign-in) and waits for the
 * console to show the user; whoever was signed in before signs out first.
 */
export async function signIn(page: Page, user: Credentials = adminCredentials()): Promise<void> {
  if (!new URL(page.url(), 'http://x').pathname.startsWith('/sign-in')) await page.goto('/sign-in');
  const username = page.getByRole('textbox', { name: 'Username' });
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await expect(username.or(signOut)).toBeVisible();
  if (await signOut.isVisible()) {
    await signOut.click();
    await expect(username).toBeVisible();
  }
  await username.fill(user.username);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('signed-in-user')).toHaveText(user.username);
}

/** A bearer token of the admin, from auth's login (cached for the worker). */
let adminToken: Promise<string> | undefined;
export function adminAccessToken(): Promise<string> {
  adminToken ??= (async () => {
    const { username, password } = adminCredentials();
    const response = await fetch(`${platformUrls().auth}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username, password, client_id: 'console-e2e' }),
    });
    if (!response.ok) throw new Error(`the admin's login answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  })();
  return adminToken;
}

/** A new user with the given permissions (and roles), made through auth's admin API. */
export async function createUser(permissions: string[], roles: string[] = ['user']): Promise<Credentials & { id: string }> {
  const user = { username: `e2e-${randomBytes(5).toString('hex')}`, password: randomBytes(12).toString('hex') };
  const response = await fetch(`${platformUrls().auth}/api/v1/auth/admin/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await adminAccessToken()}` },
    body: JSON.stringify({ ...user, roles, permissions }),
  });
  if (response.status !== 201) throw new Error(`creating a user answered ${response.status}: ${await response.text()}`);
  const { id } = (await response.json()) as { id: string };
  return { ...user, id };
}

/**
 * No `serious` or `critical` axe-core violation on the page as it is now, once its transitions have
 * ended (a color half-way through a hover or an opening dialog is not what a reader sees).
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.mouse.move(0, 0);
  // Spinners run forever: only transitions and animations that end are waited for.
  await page.waitForFunction(
    () => document.getAnimations().every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity),
    undefined,
    { timeout: 10_000 },
  );
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')),
    }));
  expect(blocking, `axe-core violations on ${page.url()}`).toEqual([]);
}
