// The one key redaction of hogsync: the HTTP client scrubs its messages with it, and the CLI
// scrubs every line it prints on the error path (src/cli/output.ts).

/**
 * Replace every occurrence of the key (and any bearer token) so no message can carry it.
 * Case-insensitive: a key that went through a hostname or a header comes back lower-cased.
 */
export function redact(text: string, secret: string | undefined): string {
  let out = text.replace(/(Bearer\s+)\S+/gi, '$1[redacted]');
  if (secret !== undefined && secret.length >= 4) out = out.replace(new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '[redacted]');
  return out;
}
