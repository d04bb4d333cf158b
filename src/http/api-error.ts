// Turns what the API answered into something a user can read on one line: the parsed JSON
// of a success, or the message of a failure built from the API's `{type, code, detail, attr}`
// body. Bodies that are not JSON (an HTML error page from a proxy) or are cut short never
// reach the terminal whole: they are described and truncated.
import { STATUS_CODES } from 'node:http';
import { parseJsonBytes } from './json-bytes.js';

const EXCERPT = 200;
/**
 * How long a message that lists the valid values may be: the API's list is what a user needs to
 * correct the value (its access resource types alone are about 1,600 characters), so it is
 * never cut; the bound only keeps a hostile body from flooding the terminal.
 */
const VALID_VALUES_EXCERPT = 20_000;

/** Whether the API's message lists the values it takes ("Must be one of: …", "Valid choices are …"). */
export function listsValidValues(message: string): boolean {
  return /\b(one of|valid (choices|values|options|types)|allowed values|expected one)\b/i.test(message);
}

/** A body as the bytes of its chunks. */
export interface Body { chunks: readonly Buffer[]; size: number }

export type ParsedBody = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Parse a response body, given as text or as its bytes (a success's: parsed without decoding a
 * large body whole, see ./json-bytes.ts). An empty body (204, or a 200 without content) is `null`.
 */
export function parseBody(status: number, contentType: string | undefined, body: string | Body): ParsedBody {
  if (isBlank(body)) return { ok: true, value: null };
  const type = mediaType(contentType);
  if (type !== undefined && !isJsonType(type)) {
    return { ok: false, problem: `the API answered ${status} with a non-JSON body (${type})` };
  }
  try {
    return { ok: true, value: typeof body === 'string' ? JSON.parse(body) as unknown : parseJsonBytes(body.chunks, body.size) };
  } catch {
    return type === undefined
      ? { ok: false, problem: `the API answered ${status} with a non-JSON body (no content type)` }
      : { ok: false, problem: `the API answered ${status} with malformed JSON` };
  }
}

/** Nothing but white space. Tested without trimming: a list's body is megabytes, and trim() would copy it. */
function isBlank(body: string | Body): boolean {
  if (typeof body === 'string') return !/\S/.test(body);
  // The first byte that is not ASCII white space decides, as for the text; one that is not
  // ASCII (other white space included) is left to the text's test.
  for (const chunk of body.chunks) {
    for (const byte of chunk) {
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0b || byte === 0x0c) continue;
      return byte >= 0x80 ? !/\S/.test(Buffer.concat(body.chunks, body.size).toString('utf8')) : false;
    }
  }
  return true;
}

/** The message of an error response: the API's detail (and attr), or a description of the body. */
export function errorMessage(status: number, contentType: string | undefined, text: string): string {
  const parsed = parseBody(status, contentType, text);
  if (!parsed.ok) {
    const excerpt = bodyExcerpt(text);
    return excerpt === '' ? parsed.problem : `${parsed.problem}: ${excerpt}`;
  }
  const reason = STATUS_CODES[status] ?? 'error';
  if (parsed.value === null) return `${reason} (empty body)`;
  const described = describeJsonError(parsed.value);
  if (described !== undefined) return oneLine(described, listsValidValues(described) ? VALID_VALUES_EXCERPT : EXCERPT);
  const json = JSON.stringify(parsed.value);
  return json === '{}' || json === '[]' ? reason : oneLine(`${reason}: ${json}`);
}

/**
 * The message of the API's error shapes, or undefined for a body of another shape:
 * `{type, code, detail, attr}` and `{detail}`; `{error}` and `{success: false, error}`; an
 * approval body `{code, status, message, change_request_id}`; a list of "path: message" strings
 * (flag filters); Django REST framework's `{field: [messages]}`. (An empty body is described
 * by the caller, with the status's own reason.)
 */
function describeJsonError(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((m) => typeof m === 'string')) return (value as string[]).join('; ');
  if (isRecord(value)) {
    const { detail, attr, code, error, message } = value;
    if (typeof detail === 'string' && detail !== '') {
      return typeof attr === 'string' && attr !== '' ? `${detail} (attr ${attr})` : detail;
    }
    if (typeof message === 'string' && message !== '') {
      const request = value.change_request_id;
      return request === undefined || request === null ? message : `${message} (change request ${String(request)})`;
    }
    if (typeof error === 'string' && error !== '') return error;
    if (isRecord(error) && typeof error.message === 'string' && error.message !== '') return error.message;
    // Django REST framework's other shape: `{"field": ["message", …]}`.
    const fields = Object.entries(value).filter(([, v]) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
    if (fields.length > 0) return fields.map(([k, v]) => `${k}: ${(v as string[]).join(' ')}`).join('; ');
    if (typeof code === 'string') return `error code ${code}`;
  }
  return undefined;
}

/** A short, single-line look at a non-JSON body: an HTML page's title, else its text without tags. */
export function bodyExcerpt(text: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text);
  const source = title?.[1] ?? text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]*>/g, ' ');
  return oneLine(source);
}

/** Collapse whitespace and cut to a length a terminal line can hold. */
export function oneLine(s: string, max = EXCERPT): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === undefined || type === '' ? undefined : type;
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
