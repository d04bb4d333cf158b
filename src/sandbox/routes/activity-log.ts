// A project's activity log: GET /api/projects/:project/activity_log/ (scope activity_log:read),
// filtered by `scope`, `scopes` (comma-separated) and `item_id`, newest first, `page` and
// `page_size` (at most 1000).
import { activityPage, projectActivity } from '../activity.js';
import type { Handler, Route } from '../router.js';
import { projectOf } from './common.js';

const list: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const q = ctx.url.searchParams;
  // Both filters apply when both are given, as on the real API; empty values filter nothing.
  const entries = projectActivity(state, project, {
    scope: q.get('scope') || undefined,
    scopes: q.get('scopes') ? (q.get('scopes') as string).split(',') : undefined,
    itemId: q.get('item_id') || undefined,
  });
  return { status: 200, body: activityPage(state, entries, ctx.url) };
});

export const activityLogRoutes: Route[] = [
  { pattern: '/api/projects/:project/activity_log/', methods: { GET: { scope: 'activity_log:read', handler: list } } },
];
