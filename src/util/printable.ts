// Untrusted text (from files, the live workspace or API messages) made safe for a terminal,
// a CI log or a Markdown comment. No dependencies: the error path of every command loads it.

/**
 * Text from the files or the live workspace made safe to print: control characters (which
 * could erase or recolour lines of a terminal or CI log), line breaks and the bidirectional
 * overrides that can reorder what a reviewer reads are shown as escapes.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The characters JSON.stringify writes as they are that could still rewrite or reorder a terminal's text. */
// eslint-disable-next-line no-control-regex
const JSON_UNSAFE = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (indented) in which no string can rewrite or reorder what a terminal or CI log
 * shows: JSON.stringify escapes C0 controls (ESC, NUL, BEL) itself; DEL, C1 controls, line and
 * paragraph separators and the bidirectional controls are written as `\uXXXX` too. The same
 * value once parsed: the structure never changes.
 */
export function safeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
