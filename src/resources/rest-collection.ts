// What most kinds' collections share: a REST list at one path per scope, items at `PATH/ID/`,
// created by POST with the identity in the body, changed by PATCH, and deleted either by
// DELETE or, where the API keeps deleted items and answers DELETE with 405, by PATCH
// {"deleted": true}. A kind spreads these into its declaration and writes after them only
// what its API does otherwise (a flag's create statuses, a hog function's filtered list).
import type { HttpCall, LiveRecord, ResourceKind, Scope } from './kind.js';

type Body = Record<string, unknown>;

export interface RestShape {
  /** The collection's path in a scope (`/api/projects/111/actions/`). */
  base: (scope: Scope) => string;
  /** `soft`: deleted by PATCH {"deleted": true}, and a record with `deleted: true` is gone; `hard`: DELETE. */
  deletes: 'soft' | 'hard';
  /** The body field the identity is created with (`name`); none where the kind's body carries it. */
  identityField?: string;
  /** The request body of a create or update, where it is not the values as they are. */
  body?: (values: Body, live: LiveRecord | undefined) => Body;
}

type RestCalls = Pick<ResourceKind, 'createStatuses' | 'deleteStatuses' | 'displayKey' | 'matchKey' | 'collectionPath' | 'itemPath' | 'liveId' | 'isGone' | 'createCall' | 'updateCall' | 'deleteCall'>;

export function restCollection({ base, deletes, identityField, body = (values) => values }: RestShape): RestCalls {
  const itemPath = (s: Scope, id: string | number) => `${base(s)}${encodeURIComponent(String(id))}/`;
  return {
    createStatuses: [201],
    deleteStatuses: deletes === 'soft' ? [200] : [204],
    displayKey: (raw) => String(raw),
    matchKey: (key) => key,
    collectionPath: base,
    itemPath,
    liveId: (r) => r.id as string | number,
    isGone: deletes === 'soft' ? (r) => r.deleted === true : () => false,
    createCall: (s, key, values): HttpCall => ({ method: 'POST', path: base(s), body: { ...body(values, undefined), ...(identityField ? { [identityField]: key } : {}) } }),
    updateCall: (s, id, values, live): HttpCall => ({ method: 'PATCH', path: itemPath(s, id), body: body(values, live) }),
    deleteCall: (s, id): HttpCall => (deletes === 'soft' ? { method: 'PATCH', path: itemPath(s, id), body: { deleted: true } } : { method: 'DELETE', path: itemPath(s, id) }),
  };
}
