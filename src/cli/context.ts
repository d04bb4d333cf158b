// What the API verbs share on the terminal: the progress line on a terminal's stderr, and
// the --verbose request log, as an Observer of the use cases' events.
import { formatWait, type ClientEvent } from '../http/client.js';
import { outcomeLine } from '../render/apply-report.js';
import { printable } from '../util/printable.js';
import { stepText, SYMBOL } from '../render/values.js';
import type { Observer, ProgressEvent } from '../usecases/session.js';

/** A one-line progress indicator on a terminal's stderr; silent elsewhere. */
export function progressLine(enabled: boolean = process.stderr.isTTY === true): { update(text: string): void; done(): void } {
  let shown = false;
  return {
    update(text) {
      if (!enabled) return;
      process.stderr.write(`\r\u001b[2K${text}`);
      shown = true;
    },
    done() {
      if (shown) process.stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

/** The line every pause gets on stderr, terminal or not, so a CI log shows why nothing moves. */
export function pauseLine(e: ClientEvent, now = Date.now()): string {
  const until = new Date(e.until ?? now + (e.waitMs ?? 0)).toISOString().replace(/\.\d+Z$/, 'Z');
  const why = e.reason === 'hourly' && e.budget
    ? `keeping within the API's hourly limit for ${e.budget}`
    : e.reason === 'hourly'
    ? 'keeping within --max-hourly (requests per hour)'
    : `the API asked to wait (rate limit${e.budget ? ` for ${e.budget}` : ''})`;
  return `hogsync: ${why}: waiting ${formatWait(e.waitMs ?? 0)}, until ${until}`;
}

function verboseLine(e: ClientEvent): string {
  const status = e.status === undefined ? '' : ` → ${e.status}`;
  const wait = e.waitMs === undefined ? '' : ` (waiting ${e.waitMs} ms)`;
  return printable(`hogsync: ${e.type} ${e.method} ${e.path}${status}${wait}`);
}

/** How often previews in progress are told off a terminal (a CI log). */
const PREVIEW_LOG_MS = 10_000;

/** `blast radius 480/600, waiting 58 s for the rate limit`. */
export function previewLine(e: { name: string; done: number; total: number; waitMs: number }): string {
  const wait = e.waitMs >= 1000 ? `, waiting ${formatWait(e.waitMs)} for the rate limit` : '';
  return `${e.name} ${e.done}/${e.total}${wait}`;
}

/**
 * How the terminal shows a use case's progress: one live line on a terminal; elsewhere (CI
 * logs) a line per change only beside a JSON report, since a text report lists every change
 * itself and a log would show each one twice.
 */
export function terminalObserver(opts: Record<string, unknown>): Observer {
  const live = progressLine();
  const perLine = process.stderr.isTTY !== true && opts.format === 'json';
  // Off a terminal (CI logs) previews are told every so often: many of them take minutes.
  let lastLogged: number | undefined;
  const show = (e: ProgressEvent): void => {
    switch (e.type) {
      case 'previewing': {
        const text = previewLine(e);
        live.update(text);
        lastLogged ??= Date.now();
        if (process.stderr.isTTY !== true && Date.now() - lastLogged >= PREVIEW_LOG_MS) {
          lastLogged = Date.now();
          process.stderr.write(`hogsync: ${text}\n`);
        }
        return;
      }
      case 'previewed':
        live.done();
        return;
      case 'reading':
        live.update(e.what === 'workspace' ? `export: reading the workspace: ${e.requests} requests` : `reading live state: ${e.requests} requests`);
        return;
      case 'change-started':
        live.update(`[${e.started}/${e.total}] ${SYMBOL[e.change.action]} ${printable(e.change.address)}${stepText(e.change.step)} …`);
        return;
      case 'change-done':
        if (perLine) process.stderr.write(`${outcomeLine(e.outcome, e.done, e.total)}\n`);
        return;
      case 'verifying':
        live.update('verifying: re-reading what changed …');
        return;
      case 'read':
      case 'executed':
      case 'verified':
        live.done();
    }
  };
  return {
    onProgress: show,
    onRequest: (e) => {
      // A pause is always said, on its own line (the live progress line would hide it).
      if (e.type === 'pause') {
        live.done();
        process.stderr.write(`${pauseLine(e)}\n`);
        return;
      }
      // --verbose: one line per request, retry and throttle on stderr (paths come redacted from the client).
      if (opts.verbose === true) process.stderr.write(`${verboseLine(e)}\n`);
    },
  };
}
