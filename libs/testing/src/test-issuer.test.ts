import { TestIssuer } from './test-issuer';

describe('TestIssuer', () => {
  const issuer = new TestIssuer();
  beforeAll(() => issuer.start());
  afterAll(() => issuer.stop());

  it('signs real RS256 tokens that a JWKS-backed verifier accepts', async () => {
    const claims = await issuer.verifier().verify(issuer.token({ sub: 'someone', permissions: ['registry:read'] }));
    expect(claims).toMatchObject({ sub: 'someone', permissions: ['registry:read'], aud: ['agent-platform'] });
  });

  it('makes expired tokens on request', async () => {
    await expect(issuer.verifier().verify(issuer.token({ expiresInSeconds: -60 }))).rejects.toMatchObject({ reason: 'token_expired' });
  });
});
