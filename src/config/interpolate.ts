// ${env:NAME} inside string values, replaced from the environment before validation.
// `$${` is a literal `${`. A string written shell-style (`$SLACK_WEBHOOK`, an upper-case name
// after `$`, or `${SLACK_WEBHOOK}`) is sent as written, with a warning at its line suggesting
// ${env:NAME}: the API's own names are lower-case (`$pageview`, `$browser`) and draw none. Any
// other `${…}` is an error, so that a typo such as ${ENV:X} or ${env.X} cannot silently reach
// the API as text. Values are never put in messages.
import { registerSecret } from '../util/secrets.js';
import { childPointer } from './pointer.js';

export interface Interpolated {
  data: unknown;
  /** Pointer of every string that took a value from the environment → the variables it used. */
  sources: Map<string, string[]>;
  problems: { pointer: string; message: string }[];
  /** Strings that look like shell interpolation, sent as written (one per variable named). */
  warnings: { pointer: string; message: string }[];
  /** Strings whose variables are unset, left as unsetValue where `defer` allowed it. */
  deferred?: { pointer: string; names: string[] }[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Expansion {
  value: string;
  names: string[];
  errors: string[];
  /** Variables written `${NAME}` (shell-style, no `env:`): kept as written. */
  shellStyle?: string[];
  /** Variables that are not set (each also an error). */
  unset?: string[];
}

/** `$NAME` with an upper-case name, not after another `$` or a word character, nor followed by one. */
const SHELL_VARIABLE = /(?<![$\w])\$([A-Z][A-Z0-9_]*)(?!\w)/g;

/** The names a string writes as `$NAME` (shell-style, upper case); exported for tests. */
export function shellVariables(s: string): string[] {
  return s.includes('$') ? [...s.matchAll(SHELL_VARIABLE)].map((m) => m[1] as string) : [];
}

/** Names the variable, never the text (the text may be a secret field's value, which is masked). */
function shellStyleWarning(name: string, form: string): string {
  return `${name} is written the shell's way (${form}): hogsync sends the text as written; to read the environment variable, write \${env:${name}}`;
}

/** Expands one string; exported for tests of the grammar. */
export function expandString(s: string, env: NodeJS.ProcessEnv): Expansion {
  if (!s.includes('${')) return { value: s, names: [], errors: [] };
  let out = '';
  const names: string[] = [];
  const errors: string[] = [];
  const shellStyle: string[] = [];
  const unset: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (!s.startsWith('${', i)) {
      out += s[i];
      i += 1;
      continue;
    }
    const end = s.indexOf('}', i + 2);
    if (end === -1) {
      errors.push('unterminated "${" (write "$${" for a literal "${")');
      break;
    }
    const inner = s.slice(i + 2, end);
    const written = s.slice(i, end + 1);
    i = end + 1;
    if (!inner.startsWith('env:')) {
      // `${NAME}`: the shell's way; sent as written, with a warning (see shellStyleWarning).
      if (NAME.test(inner)) {
        out += written;
        shellStyle.push(inner);
        continue;
      }
      errors.push(`unsupported interpolation "${written}": only \${env:NAME} is supported (write "$\${" for a literal "\${")`);
      continue;
    }
    const name = inner.slice(4);
    if (name === '') {
      errors.push(`empty variable name in "${written}"`);
    } else if (!NAME.test(name)) {
      errors.push(`invalid variable name in "${written}": use letters, digits and _, not starting with a digit`);
    } else if (env[name] === undefined) {
      errors.push(`environment variable ${name} is not set`);
      unset.push(name);
    } else {
      out += env[name];
      names.push(name);
    }
  }
  return { value: out, names, errors, ...(shellStyle.length > 0 ? { shellStyle } : {}), ...(unset.length > 0 ? { unset } : {}) };
}

/** Whether any string below `value` holds `text` (checked first: most files interpolate nothing). */
function mentions(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value.includes(text);
  if (Array.isArray(value)) return value.some((v) => mentions(v, text));
  if (value !== null && typeof value === 'object') {
    for (const key in value) if (mentions((value as Record<string, unknown>)[key], text)) return true;
  }
  return false;
}

/**
 * Strings written the shell's way, read without copying anything (the API's own `$browser`
 * properties are common in flag filters: those files must not be rebuilt for them).
 */
function shellStyleWarnings(data: unknown, env: NodeJS.ProcessEnv): { pointer: string; message: string }[] {
  const out: { pointer: string; message: string }[] = [];
  const path: Array<string | number> = [];
  const pointer = () => path.reduce<string>((p, segment) => childPointer(p, segment), '');
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (!value.includes('$')) return;
      for (const name of shellVariables(value)) out.push({ pointer: pointer(), message: shellStyleWarning(name, '$NAME') });
      const braced = value.includes('${') ? expandString(value, env).shellStyle ?? [] : [];
      for (const name of braced) out.push({ pointer: pointer(), message: shellStyleWarning(name, '${NAME}') });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => {
        path.push(i);
        walk(v);
        path.pop();
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        path.push(k);
        walk(v);
        path.pop();
      }
    }
  };
  walk(data);
  return out;
}

/**
 * `text`: what the data was read from, when known. Without a `$` in it, nor a `\` (a quoted
 * string's escape may write one), no string of the data holds one: the data is not walked.
 */
/**
 * What stands for a value whose variables are not set, where the run may go on without it (a
 * write-only secret that nothing may send): never a value, never sent (src/plan/unset.ts checks).
 */
export function unsetValue(names: readonly string[]): string {
  return `\u0000unset ${names.map((n) => `\${env:${n}}`).join(' ')}`;
}

/** `defer(pointer)`: whether an unset variable at that place leaves unsetValue there instead of an error. */
export function interpolate(data: unknown, env: NodeJS.ProcessEnv, text?: string, defer?: (pointer: string) => boolean): Interpolated {
  if ((text !== undefined && !text.includes('$') && !text.includes('\\')) || !mentions(data, '$')) return { data, problems: [], sources: new Map(), warnings: [] };
  const warnings = shellStyleWarnings(data, env);
  if (!mentions(data, '${')) return { data, problems: [], sources: new Map(), warnings };
  const sources = new Map<string, string[]>();
  const problems: { pointer: string; message: string }[] = [];
  const deferred: { pointer: string; names: string[] }[] = [];
  const visit = (value: unknown, pointer: string): unknown => {
    if (typeof value === 'string') {
      const r = expandString(value, env);
      if (r.unset && r.errors.length === r.unset.length && defer?.(pointer)) {
        deferred.push({ pointer, names: r.unset });
        // Still a value from the environment: masked and described as such, never taken for a literal.
        sources.set(pointer, r.unset);
        return unsetValue(r.unset);
      }
      for (const message of r.errors) problems.push({ pointer, message });
      if (r.names.length > 0) {
        sources.set(pointer, r.names);
        // Whatever came from the environment is masked in everything printed or written.
        registerSecret(r.value);
        for (const name of r.names) registerSecret(env[name]);
      }
      return r.value;
    }
    if (Array.isArray(value)) return value.map((v, i) => visit(v, childPointer(pointer, i)));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = visit(v, childPointer(pointer, k));
      return out;
    }
    return value;
  };
  const out = visit(data, '');
  return { data: out, sources, problems, warnings, ...(deferred.length > 0 ? { deferred } : {}) };
}
