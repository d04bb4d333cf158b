// Every API route the sandbox serves, in match order: each kind's routes (its actions, its
// collection, its items; src/sandbox/kind-model.ts derives them from the kind's model), then the
// routes no kind owns (a project's activity log and access controls, the organizations themselves,
// their members and invites, the key's own user).
import type { SandboxModel } from '../kind-model.js';
import { routesOf } from '../kind-model.js';
import type { Route } from '../router.js';
import { accessControlRoutes } from './access-controls.js';
import { activityLogRoutes } from './activity-log.js';
import { memberRoutes } from './members.js';
import { organizationRoutes } from './organizations.js';
import { userRoutes } from './users.js';

const built = new WeakMap<readonly SandboxModel[], readonly Route[]>();

export function sandboxRoutes(models: readonly SandboxModel[]): readonly Route[] {
  let routes = built.get(models);
  if (!routes) {
    routes = [...models.flatMap(routesOf), ...activityLogRoutes, ...accessControlRoutes, ...memberRoutes, ...organizationRoutes, ...userRoutes];
    built.set(models, routes);
  }
  return routes;
}
