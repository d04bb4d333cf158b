// The secrets this run knows (the API key, every value of a sensitive field, every value that
// came through ${env:…}) and the one mask applied to everything hogsync prints or writes: its
// own messages, API messages that echo what was sent, reports and --out files. A secret is
// found verbatim and in the forms a message or a document gives it (JSON-escaped, URL-encoded).

/** Shorter values would match ordinary words and numbers; they are not masked. */
export const MIN_SECRET_LENGTH = 6;

const KEY_MASK = '(redacted)';
const VALUE_MASK = '(sensitive)';

const values = new Set<string>();
let forms: Array<[string, string]> | undefined;

/** Adds a value to mask from now on (strings of MIN_SECRET_LENGTH or more characters). */
export function registerSecret(value: unknown): void {
  if (typeof value === 'string') {
    if (value.length >= MIN_SECRET_LENGTH && !values.has(value)) {
      values.add(value);
      forms = undefined;
    }
  } else if (Array.isArray(value)) {
    for (const v of value) registerSecret(v);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) registerSecret(v);
  }
}

/** For tests that run in one process. */
export function forgetSecrets(): void {
  values.clear();
  forms = undefined;
}

function encodings(secret: string): string[] {
  const out = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
  try {
    out.add(encodeURIComponent(secret));
  } catch {
    // A lone surrogate cannot be URL-encoded; the other forms still apply.
  }
  return [...out];
}

function currentForms(): Array<[string, string]> {
  const key = process.env.HOGSYNC_API_KEY ?? '';
  if (forms && (forms as Array<[string, string]> & { key?: string }).key === key) return forms;
  const list: Array<[string, string]> = [];
  for (const v of values) for (const f of encodings(v)) list.push([f, VALUE_MASK]);
  // The key is masked last-registered-first: it wins over a sensitive value that contains it.
  if (key.length >= 4) for (const f of encodings(key)) list.push([f, KEY_MASK]);
  // Longest first, so a secret that contains another is masked whole.
  list.sort((a, b) => b[0].length - a[0].length);
  forms = Object.assign(list, { key });
  return forms;
}

/** The text with every known secret replaced by a placeholder (the key of HOGSYNC_API_KEY too). */
export function maskSecrets(text: string): string {
  const list = currentForms();
  if (text.length === 0) return text;
  let out = text;
  for (const [form, mask] of list) if (out.includes(form)) out = out.split(form).join(mask);
  return maskKey(out, process.env.HOGSYNC_API_KEY);
}

/**
 * A bearer token as RFC 6750 writes one (token68): only its own characters, so masking it never
 * takes a quote, a comma or a bracket with it (the JSON or YAML around it keeps its structure),
 * and never goes past the end of its line.
 */
const BEARER_TOKEN = /(Bearer[ \t]+)[A-Za-z0-9\-._~+/]+=*/gi;

/** Whether a value holds a bearer credential (`Authorization: Bearer …`): a secret wherever it is found. */
export function holdsCredential(text: string): boolean {
  return /bearer/i.test(text) && new RegExp(BEARER_TOKEN.source, 'i').test(text);
}

/**
 * The one key redaction: every bearer token, and the key in every form a message gives it,
 * case-insensitively (a key that went through a hostname or a header comes back lower-cased).
 * The HTTP client applies it to its own messages with its own key; maskSecrets to all output.
 * A plain search, not a regular expression: a key of any length or content is masked alike
 * (a pattern built from a 120 000-character key is too large for the engine to compile).
 */
export function maskKey(text: string, key: string | undefined): string {
  let out = /bearer/i.test(text) ? text.replace(BEARER_TOKEN, `$1${KEY_MASK}`) : text;
  if (key !== undefined && key.length >= 4) out = replaceFolded(out, keyForms(key), KEY_MASK);
  return out;
}

let keyFormsOf: { key: string; forms: string[] } | undefined;

/** The key's forms, folded and longest first (so a form that contains another is masked whole). */
function keyForms(key: string): string[] {
  if (keyFormsOf?.key !== key) keyFormsOf = { key, forms: [...new Set(encodings(key).map(fold))].sort((a, b) => b.length - a.length) };
  return keyFormsOf.forms;
}

/** Lower case where that keeps every character one UTF-16 unit, so indexes of the folded text are the text's. */
function fold(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const ch of text) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}

/** `text` with every occurrence of the (folded) forms, in any case, replaced by `mask`. */
function replaceFolded(text: string, forms: readonly string[], mask: string): string {
  const folded = fold(text);
  if (!forms.some((f) => folded.includes(f))) return text;
  let out = '';
  let from = 0;
  for (;;) {
    // The nearest occurrence of any form; at one index, the longest form (they are sorted so).
    let at = -1;
    let form = '';
    for (const f of forms) {
      const i = folded.indexOf(f, from);
      if (i !== -1 && (at === -1 || i < at)) {
        at = i;
        form = f;
      }
    }
    if (at === -1) break;
    out += text.slice(from, at) + mask;
    from = at + form.length;
  }
  return out + text.slice(from);
}

/** Masks every string written to `stream` from now on (stdout and stderr of the API verbs). */
export function maskStream(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  (stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (typeof chunk === 'string') return write(maskSecrets(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk).toString('utf8');
      const masked = maskSecrets(text);
      return write(masked === text ? chunk : masked, ...rest);
    }
    return write(chunk, ...rest);
  };
}
