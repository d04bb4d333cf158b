// Every API route the sandbox serves, in match order (literal paths before parameters).
import type { Route } from '../router.js';
import { activityLogRoutes } from './activity-log.js';
import { featureFlagRoutes } from './feature-flags.js';
import { projectRoutes } from './projects.js';
import { proxyRecordRoutes } from './proxy-records.js';
import { roleRoutes } from './roles.js';

export const ROUTES: readonly Route[] = [...projectRoutes, ...proxyRecordRoutes, ...roleRoutes, ...featureFlagRoutes, ...activityLogRoutes];
