// Features of an organization's plan that change what the API takes (the real API's
// `available_product_features`): data management (the event dictionary), advanced permissions
// and role-based access (access controls), tagging, more than one project, experiments (their
// holdouts and saved metrics too: without it the paths answer 404). A seed lists the
// ones its organization has under `features`; without that list it has every feature.
import type { OrganizationState } from './state.js';

export const FEATURES = ['data_management', 'tagging', 'advanced_permissions', 'role_based_access', 'organizations_projects', 'audit_logs', 'experiments', 'alerts'] as const;
export type Feature = (typeof FEATURES)[number];

export function hasFeature(org: OrganizationState, feature: Feature | string): boolean {
  const listed = org.features;
  return !Array.isArray(listed) || listed.includes(feature);
}
