import { Navigate, type RouteObject } from 'react-router';
import { createElement } from 'react';
import type { ConsoleSection } from '../../shell/sections';

const tab = (path: string, load: () => Promise<{ Component: React.ComponentType }>): RouteObject => ({ path, lazy: load });

const admin: ConsoleSection = {
  id: 'admin',
  label: 'Admin',
  order: 1000,
  permission: 'auth:admin',
  routes: [
    {
      lazy: () => import('./AdminLayout').then((m) => ({ Component: m.AdminLayout })),
      children: [
        { index: true, element: createElement(Navigate, { to: 'users', replace: true }) },
        tab('users', () => import('./users/UsersTab').then((m) => ({ Component: m.UsersTab }))),
        tab('api-keys', () => import('./api-keys/ApiKeysTab').then((m) => ({ Component: m.ApiKeysTab }))),
        tab('roles', () => import('./roles/RolesTab').then((m) => ({ Component: m.RolesTab }))),
        tab('audit', () => import('./audit/AuditTab').then((m) => ({ Component: m.AuditTab }))),
      ],
    },
  ],
};
export default admin;
