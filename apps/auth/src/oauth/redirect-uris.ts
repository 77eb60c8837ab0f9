/**
 * Redirect URIs are compared as exact strings against the allow-list: no prefix, no normalisation,
 * so `https://app.example/cb/../evil`, `https://app.example/cb/extra`, another port or an
 * `https://app.example@evil.example/cb` never match. The development callback (any port on
 * localhost or 127.0.0.1 over http, without userinfo) is accepted only when enabled.
 */
export function isAllowedRedirectUri(uri: string, allowList: readonly string[], allowDevCallback: boolean): boolean {
  if (allowList.includes(uri)) return true;
  if (!allowDevCallback) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return (
    url.protocol === 'http:' &&
    (url.hostname === 'localhost' || url.hostname === '127.0.0.1') &&
    !url.username &&
    !url.password &&
    !url.hash &&
    uri.startsWith(`http://${url.host}/`)
  );
}
