import { auth, PageQuery } from '@platform/contracts';
import type { TokenVerifier } from '@platform/jwt';
import { ApiRouter } from '@platform/http';
import type { Users } from './users.service';
import { publicUser } from './users.view';

export function usersRouter(verifier: TokenVerifier, users: Users): ApiRouter {
  return new ApiRouter(verifier)
    .route({
      method: 'post',
      path: '/admin/users',
      summary: 'Create a user with a password',
      tags: ['admin'],
      access: { permission: 'auth:admin' },
      body: auth.CreateUserRequest,
      responses: { 201: { description: 'Created', schema: auth.User }, 409: { description: 'The username is taken' } },
      handler: async (req) => publicUser(await users.create(req.valid.body, req.auth!.sub)),
    })
    .route({
      method: 'get',
      path: '/admin/users',
      summary: 'List users',
      tags: ['admin'],
      access: { permission: 'auth:admin' },
      query: PageQuery,
      responses: { 200: { description: 'A page of users', schema: auth.UserList } },
      handler: (req) => users.list(req.valid.query),
    });
}
