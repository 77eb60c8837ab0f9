import { platformErrorFrom } from './errors';
import { CONSOLE_HEADER } from './session';
import { OAuthProviderList, type OAuthProvider } from './session-schema';

/** The identity providers the gateway offers for sign-in (none when it lists none). */
export async function listProviders(): Promise<OAuthProvider[]> {
  const response = await fetch('/api/v1/console/providers', { headers: { ...CONSOLE_HEADER }, credentials: 'same-origin' });
  const text = await response.text();
  if (!response.ok) throw platformErrorFrom(response.status, text);
  const parsed = OAuthProviderList.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data.providers : [];
}
