import { fuzzOpenApi } from '@platform/testing';
import { startAuth, type AuthHarness } from './fixtures';

/** Every operation of /openapi.json, sent odd paths, queries and bodies: never a 5xx, always the error shape. */
describe('auth under odd input', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  it('answers every fuzzed request with a 2xx/4xx in the platform error shape', async () => {
    // Rotating signing keys changes which key signs for the other test files of the suite.
    const findings = await fuzzOpenApi(auth.service.app, {
      authorization: `Bearer ${await auth.admin()}`,
      skip: ['post /api/v1/auth/admin/signing-keys/rotate'],
    });
    expect(findings).toEqual([]);
  }, 120_000);
});
