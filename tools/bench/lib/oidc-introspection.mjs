// The peer that bench:auth measures /validate beside: node-oidc-provider's token introspection
// (RFC 7662) with its default in-memory store, a client_credentials access token and client
// authentication by HTTP Basic. Started with fork(); sends {port, token, authorization} once ready.
import http from 'node:http';
import Provider from 'oidc-provider';

const server = http.createServer();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', async () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'bench',
        client_secret: 'bench-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    features: { introspection: { enabled: true }, clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
    scopes: ['api'],
    ttl: { ClientCredentials: 3600 },
  });
  provider.proxy = false;
  server.on('request', provider.callback());
  const basic = `Basic ${Buffer.from('bench:bench-secret').toString('base64')}`;
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=api',
  });
  const { access_token: token } = await res.json();
  process.send({ port: server.address().port, token, authorization: basic });
});
