// Errors the sandbox answers with, in the real API's body shape
// `{type, code, detail, attr}` (drf-standardized-errors, as PostHog uses it).

export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'client_error' | 'throttled_error' | 'server_error';

export type ErrorBody = { type: ErrorType; code: string; detail: string; attr: string | null };

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.detail);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
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

export function throttled(seconds: number): ApiError {
  // The real API sends no Retry-After; clients must read the seconds from the detail.
  return new ApiError(429, { type: 'throttled_error', code: 'throttled', detail: `Request was throttled. Expected available in ${seconds} seconds.`, attr: null });
}

export function serverError(detail = 'A server error occurred.'): ApiError {
  return new ApiError(500, { type: 'server_error', code: 'error', detail, attr: null });
}
