// A real OpenID Connect provider (the oidc-provider package) for the auth suite's OAuth tests.
// Started by the test as a child process (the package is ESM-only); prints {"issuer"} once ready.
// Logging in needs no form: the interaction signs in whichever account the test chose last.
import http from 'node:http';
import Provider from 'oidc-provider';

const redirectUri = process.env.REDIRECT_URI;
const accounts = {
  alice: { email: 'alice@example.test', name: 'Alice Admin', preferred_username: 'alice', groups: ['platform/admins', 'platform'] },
  dave: { email: 'dave@example.test', name: 'Dave Dev', preferred_username: 'dave', groups: ['platform/developers'] },
  bob: { email: 'bob@example.test', name: 'Bob Outsider', preferred_username: 'bob', groups: ['elsewhere/team'] },
};
let nextAccount = 'alice';

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'platform-test-client',
        client_secret: 'platform-test-secret',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'groups'],
    cookies: { keys: ['a-test-cookie-key'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      return account && { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    try {
      if (req.method === 'POST' && req.url.startsWith('/test/account/')) {
        nextAccount = req.url.slice('/test/account/'.length);
        res.end('ok');
        return;
      }
      if (req.url.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        const grant = new provider.Grant({ accountId: nextAccount, clientId: details.params.client_id });
        grant.addOIDCScope(details.params.scope);
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId: nextAccount }, consent: { grantId } }, { mergeWithLastSubmission: false });
        return;
      }
      callback(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
