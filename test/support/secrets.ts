// Asserting that a secret (an API key, a sensitive configuration value) left no trace in
// what a process printed or wrote. A leak is rarely the whole secret verbatim: a message may
// cut it, a header may carry it base64-encoded, JSON or a URL may escape it. So besides the
// secret itself this looks for its encodings and for any long enough piece of it.
import { expect } from 'vitest';

/** What was printed or written, by a label that says where it came from ("plan --verbose: stderr"). */
export type Outputs = Record<string, string> | Array<{ label: string; text: string }>;

export interface NoSecretOptions {
  /** Also refuse every piece of the secret at least this long (default 12; 0 = whole secret only). */
  minFragment?: number;
}

function entries(outputs: Outputs): Array<{ label: string; text: string }> {
  return Array.isArray(outputs) ? outputs : Object.entries(outputs).map(([label, text]) => ({ label, text }));
}

/** The forms a secret takes when it leaks: verbatim, encoded, or cut into pieces. */
export function secretForms(secret: string, minFragment = 12): string[] {
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(`Bearer ${secret}`).toString('base64').replace(/=+$/, ''),
  ]);
  if (minFragment > 0 && secret.length > minFragment) {
    for (let i = 0; i + minFragment <= secret.length; i++) forms.add(secret.slice(i, i + minFragment));
  }
  return [...forms].filter((f) => f.length > 0);
}

/** Where the first form of `secret` occurs in `text`, or undefined. */
export function findSecret(text: string, secret: string, options: NoSecretOptions = {}): { form: string; index: number } | undefined {
  for (const form of secretForms(secret, options.minFragment ?? 12)) {
    const index = text.indexOf(form);
    if (index >= 0) return { form, index };
  }
  return undefined;
}

/**
 * Fails naming the output and the place when any of `secrets` (or a form of it) occurs in any
 * output. Secrets shorter than 8 characters are refused: they would match by accident.
 */
export function expectNoSecret(outputs: Outputs, secret: string | string[], options: NoSecretOptions = {}): void {
  const secrets = Array.isArray(secret) ? secret : [secret];
  const list = entries(outputs);
  expect(list.length, 'expectNoSecret needs outputs to look at').toBeGreaterThan(0);
  const leaks: string[] = [];
  for (const s of secrets) {
    if (s.length < 8) throw new Error(`expectNoSecret: a secret of ${s.length} characters would match by accident; use a longer, distinctive one`);
    for (const { label, text } of list) {
      const hit = findSecret(text, s, options);
      if (hit) {
        const context = text.slice(Math.max(0, hit.index - 40), hit.index + hit.form.length + 40).replace(/\n/g, '\\n');
        leaks.push(`${label}: contains ${hit.form === s ? 'the secret' : `a form of the secret (${JSON.stringify(hit.form)})`} at ${hit.index}: …${context}…`);
      }
    }
  }
  expect(leaks, 'secret found in output').toEqual([]);
}
