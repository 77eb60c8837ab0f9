/** Where to go after signing in: only a path of this console, never another origin. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !/^\/[/\\]/.test(next) && !next.startsWith('/sign-in') ? next : '/';
}

/** The sign-in page's address for a signed-out visit of `pathname` + `search`, keeping where to return. */
export function signInTarget(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  // The gateway's OAuth callback returns to `/?oauth_error=<code>` when the provider's sign-in failed.
  const oauthError = params.get('oauth_error');
  params.delete('oauth_error');
  const rest = params.toString();
  const next = `${pathname}${rest ? `?${rest}` : ''}`;
  const target = new URLSearchParams();
  if (next !== '/') target.set('next', next);
  if (oauthError) target.set('oauth_error', oauthError);
  const query = target.toString();
  return query ? `/sign-in?${query}` : '/sign-in';
}
