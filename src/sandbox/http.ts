// The HTTP edge of the sandbox: reading a request body as the real API parses it (JSON only,
// an object for writes) and writing JSON answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, validationError } from './errors.js';
import { isObject, pyTypeName, type Json, type JsonObject } from './json.js';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** The raw body; an over-long body is drained (so the connection stays usable) and refused. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, { type: 'invalid_request', code: 'request_too_large', detail: `Request body exceeds ${MAX_BODY_BYTES} bytes.`, attr: null }));
      } else {
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', reject);
  });
}

/** The JSON object of a write request: {} when empty, 400 when malformed or not an object, 415 when not JSON. */
export function parseJsonObject(raw: Buffer, contentType: string | undefined): JsonObject {
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  const mediaType = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    throw new ApiError(415, { type: 'invalid_request', code: 'unsupported_media_type', detail: `Unsupported media type "${mediaType}" in request.`, attr: null });
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (err) {
    throw validationError(null, `JSON parse error - ${(err as Error).message}`, 'parse_error');
  }
  if (!isObject(parsed)) {
    throw validationError('non_field_errors', `Invalid data. Expected a dictionary, but got ${pyTypeName(parsed)}.`, 'invalid');
  }
  return parsed;
}

export function sendJson(res: ServerResponse, status: number, body: Json | undefined, headers: Record<string, string> = {}): void {
  sendEncoded(res, encodeJson(status, body, headers));
}

/** An answer made ready to write: its JSON already encoded (a read's is made while its latency runs). */
export interface EncodedReply {
  status: number;
  headers: Record<string, string | number>;
  /** Undefined for an answer without a body. */
  pieces?: Buffer[];
}

export function encodeJson(status: number, body: Json | undefined, headers: Record<string, string> = {}): EncodedReply {
  if (body === undefined || status === 204) return { status, headers };
  const pieces = jsonPieces(body);
  let length = 0;
  for (const piece of pieces) length += piece.length;
  return { status, headers: { 'content-type': 'application/json', 'content-length': length, ...headers }, pieces };
}

export function sendEncoded(res: ServerResponse, reply: EncodedReply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, reply.headers);
  if (!reply.pieces) {
    res.end();
    return;
  }
  // Written piece by piece (one writev), never copied into one buffer.
  res.cork();
  for (const piece of reply.pieces) res.write(piece);
  res.end();
}

/** Text gathered before it is encoded: well under the size of a large string (below). */
const PIECE_CHARS = 16 * 1024;

/**
 * The bytes of `JSON.stringify(body)`, in order, without ever making one string of the whole
 * answer. V8 puts a string of 128 KiB or more in its large-object space, a memory mapping of its
 * own, and reading it whole again (to measure or encode it) cost three times what writing it
 * did: a list of 100 flags is 130 KB, and the plan benchmark's read moves 26 MB of them. A
 * top-level list (`results`) is written a record at a time; every 16 K characters, the texts
 * gathered are joined (one flat string: a string built by `+=` is copied flat again to be
 * encoded) and encoded.
 */
export function jsonPieces(body: Json): Buffer[] {
  if (!isObject(body)) return [Buffer.from(JSON.stringify(body))];
  const pieces: Buffer[] = [];
  let texts: string[] = ['{'];
  let chars = 1;
  const add = (text: string) => {
    texts.push(text);
    chars += text.length;
    if (chars >= PIECE_CHARS) {
      pieces.push(Buffer.from(texts.join('')));
      texts = [];
      chars = 0;
    }
  };
  let first = true;
  for (const name of Object.keys(body)) {
    const value = body[name];
    // As JSON.stringify: a member whose value is undefined is left out.
    if (value === undefined) continue;
    if (!first) add(',');
    first = false;
    add(`${JSON.stringify(name)}:`);
    if (!Array.isArray(value)) {
      add(JSON.stringify(value));
      continue;
    }
    add('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) add(',');
      // As JSON.stringify: an undefined list entry is null.
      add(JSON.stringify(value[i]) ?? 'null');
    }
    add(']');
  }
  texts.push('}');
  pieces.push(Buffer.from(texts.join('')));
  return pieces;
}
