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
