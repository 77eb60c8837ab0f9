/** The auth suite's own database next to the platform's: `<database>_auth_test`. */
export function authTestDatabaseUrl(): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/platform');
  url.pathname = `${url.pathname.replace(/\/$/, '') || '/platform'}_auth_test`;
  return url.toString();
}
