// Differences between the OpenAPI fixture and what hogsync or the sandbox do on purpose, each
// with its reason: the contract tests (test/contract.openapi.test.ts, test/contract.kinds.test.ts)
// tolerate a problem only when its text matches one of these.
/**
 * Differences between the real API's document and what hogsync or the sandbox do on purpose,
 * each with its reason. A problem is tolerated only when its text matches one of these.
 * (The user_blast_radius body carries `key`, so it also satisfies the document's FeatureFlag
 * schema, and a role's feature_flags_access_level is an extra property the document allows.)
 */
export const TOLERATED: Array<{ where: RegExp; problem: RegExp; reason: string }> = [
  {
    where: /^GET \/api\/projects\/\d+\/subscriptions\/$/,
    problem: /^unknown query parameter (dashboard|insight)$/,
    reason: 'SubscriptionViewSet filters its list by `dashboard` (and `insight`, `deleted`) read from request.GET in safely_get_queryset (posthog/api/subscription.py), undocumented in the generated document',
  },
  {
    where: /^GET \/api\/(organizations\/[^/]+\/projects\/\d+\/(global_)?access_controls\/|projects\/)$/,
    problem: /no path of the OpenAPI document matches/,
    reason: 'endpoints of api-reference.md (access_controls, global_access_controls) and of PRODUCT.md (GET /api/projects/) that the document subset leaves out',
  },
  {
    where: /^GET \/api\/projects\/\d+\/activity_log\/$/,
    problem: /no path of the OpenAPI document matches/,
    reason: 'the activity log endpoint of PRODUCT.md ("Real-API behaviour", activity logs), which the document subset leaves out',
  },
  {
    where: /^GET \/api\/organizations\/[^/]+\/proxy_records\/$/,
    problem: /must have required property 'count'/,
    reason: 'the real view answers its own one-page list {results, max_proxy_records} (posthog/api/proxy_record.py), not the paginated shape drf-spectacular documents',
  },
  {
    where: /^(POST|DELETE) \/api\/organizations\/[^/]+\/proxy_records\//,
    problem: /status 200 is not documented/,
    reason: 'the real view answers create with 200 and delete with 200 {"success": true} (posthog/api/proxy_record.py); the document says 201 and 204',
  },
  {
    where: /^GET \/api\/projects\/\d+\/feature_flags\/$/,
    problem: /^unknown query parameter archived$/,
    reason: 'PRODUCT.md: the flag list leaves archived flags out unless the request names `archived` (?archived=true lists them); the document subset predates the parameter',
  },
  {
    where: /^(GET|POST|PATCH) \/api\/projects\/\d+\/experiments\/(\d+\/([a-z_]+\/)?)?$/,
    problem: /^response body (\/results\/\d+)?\/holdout: must be object$/,
    reason: 'the real ExperimentSerializer answers `holdout: null` for an experiment without one (a nullable foreign key serialized by ExperimentHoldoutSerializer); drf-spectacular documents the nested serializer without nullable',
  },
  {
    where: /^GET \/api\/projects\/\d+\/experiments\/$/,
    problem: /^unknown query parameter archived$/,
    reason: 'PRODUCT.md: the experiment list hides archived experiments unless `?archived=true` (ExperimentViewSet.safely_get_queryset reads the parameter; drf-spectacular does not document it)',
  },
  {
    where: /^(GET|POST|PATCH) \/api\/projects\/\d+\/feature_flags\/(\d+\/)?$/,
    problem: /^response body (\/results\/\d+)?\/(experiment_set: must be string|surveys: must be object|features: must be object)$/,
    reason: 'the real FeatureFlagSerializer answers lists (get_experiment_set returns the experiments\' ids, get_surveys and get_features serialize many=True: products/feature_flags/backend/api/feature_flag.py); drf-spectacular documents these method fields without their annotations, as a string and objects',
  },
  {
    where: /^(GET|POST|PATCH) \/api\/projects\/\d+\/feature_flags\/(\d+\/)?$/,
    problem: /^response body (\/results\/\d+)?\/usage_dashboard: must be integer$/,
    reason: 'usage_dashboard is a nullable foreign key (posthog/models/feature_flag: usage_dashboard = ForeignKey(..., null=True)): a flag created with _should_create_usage_dashboard: false, as hogsync creates them, has none; drf-spectacular documents the read-only field without its null',
  },
  {
    where: /^(POST|PATCH) \/api\/projects\/\d+\/dashboards\/(\d+\/)?$/,
    problem: /^request body \/(filters|variables|tiles): is read-only \(the API ignores it\)$/,
    reason: 'DashboardSerializer declares filters, variables and tiles as method fields (read-only to drf-spectacular), but create and update read them from initial_data (posthog/api/dashboards/dashboard.py: request_filters = initial_data.get("filters"), tiles = initial_data.pop("tiles", [])): the only way to set them',
  },
  {
    where: /^GET \/api\/projects\/\d+\/event_definitions\/$/,
    problem: /^unknown query parameter (search|limit|offset)$/,
    reason: 'the document subset lists no parameter of the event definition list; the real view takes search, limit and offset (posthog/api/event_definition.py: EventDefinitionQuerySerializer and the `search` OpenApiParameter)',
  },
  {
    where: /^PATCH \/api\/projects\/\d+\/event_definitions\/[^/]+\/$/,
    problem: /takes no request body/,
    reason: 'the document subset marks the event definition views internal and leaves their serializer out; the real view takes description, tags, verified and hidden (ee/api/ee_event_definition.py, EnterpriseEventDefinitionSerializer)',
  },
  {
    where: /./,
    problem: /status (4\d\d) is not documented/,
    reason: 'the document lists success statuses only; error bodies are checked below against the API error shape {type, code, detail, attr}',
  },
];


/** Whether a problem of a request or response is one of the tolerated differences. */
export function tolerated(method: string, path: string, problem: string): boolean {
  const where = `${method} ${path.split('?')[0]}`;
  return TOLERATED.some((t) => t.where.test(where) && t.problem.test(problem));
}
