// Errors the sandbox answers with, in the real API's body shapes: usually
// `{type, code, detail, attr}` (drf-standardized-errors, as PostHog uses it), but where a view
// of the real API builds its own answer, that view's shape: `{"detail"}` (the proxy limit),
// `{"error"}`, `{"success": false, "error"}`, or an empty body.
import type { JsonObject } from './json.js';

export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'client_error' | 'throttled_error' | 'server_error';

export type ErrorBody = { type: ErrorType; code: string; detail: string; attr: string | null };

export class ApiError extends Error {
  readonly status: number;
  /** The standard body; for a view's own shape, what seeds and logs read (the answer is `answer`). */
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;
  /** The body actually answered when it is not the standard shape (undefined = `body`; null = empty). */
  readonly answer: JsonObject | null | undefined;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}, answer?: JsonObject | null) {
    super(body.detail);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.answer = answer;
  }

  /** What goes on the wire. */
  get wire(): JsonObject | undefined {
    return this.answer === undefined ? this.body : this.answer ?? undefined;
  }
}

/** An error a view answers in its own shape (e.g. `{"detail": …}` without type or code). */
export function viewError(status: number, answer: JsonObject | null, detail: string, attr: string | null = null): ApiError {
  const type: ErrorType = status >= 500 ? 'server_error' : status === 400 ? 'validation_error' : 'invalid_request';
  return new ApiError(status, { type, code: 'error', detail, attr }, {}, answer);
}

export function conflict(detail: string): ApiError {
  return new ApiError(409, { type: 'invalid_request', code: 'conflict', detail, attr: null });
}

export function validationError(attr: string | null, detail: string, code = 'invalid_input'): ApiError {
  return new ApiError(400, { type: 'validation_error', code, detail, attr });
}

export function notFound(): ApiError {
  return new ApiError(404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
}

export function methodNotAllowed(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(405, { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null },
    { allow: allowed.join(', ') });
}

export function notAuthenticated(): ApiError {
  return new ApiError(401, { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null },
    { 'www-authenticate': 'Bearer realm="api"' });
}

/** A key was sent but is not one the sandbox knows (the real API words it this way). */
export function invalidKey(): ApiError {
  return new ApiError(401, { type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null },
    { 'www-authenticate': 'Bearer realm="api"' });
}

export function permissionDenied(detail: string): ApiError {
  return new ApiError(403, { type: 'authentication_error', code: 'permission_denied', detail, attr: null });
}

/** A feature the organization's plan does not include (the real API's EnterpriseFeatureException). */
export function paymentRequired(): ApiError {
  return new ApiError(402, {
    type: 'invalid_request', code: 'payment_required', attr: null,
    detail: 'This feature is part of the premium PostHog offering. To use it, subscribe to PostHog Cloud with a generous free tier.',
  });
}

export function throttled(seconds: number): ApiError {
  // The real API sends no Retry-After; clients must read the seconds from the detail.
  return new ApiError(429, { type: 'throttled_error', code: 'throttled', detail: `Request was throttled. Expected available in ${seconds} seconds.`, attr: null });
}

export function serverError(detail = 'A server error occurred.'): ApiError {
  return new ApiError(500, { type: 'server_error', code: 'error', detail, attr: null });
}
