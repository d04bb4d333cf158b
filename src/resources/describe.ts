// What a kind may say about a change of one of its fields in its users' words (a flag's
// release conditions as the web app shows them), and where the API's activity log keeps its
// items' changes (drift attribution). Types only: kinds declare them, renderers and the
// attribution use case read them.
import type { FlagLine } from './feature_flag/describe.js';

/** Lines a reviewer reads: text lines (`+` added, `-` removed, `~` changed, ` ` a note), or a part shown as its JSON diff. */
export type DescribedLine = FlagLine;

export interface DescribeContext {
  /** The field holds secrets somewhere (a flag's encrypted payloads): never show their values. */
  sensitive: boolean;
  /** The placeholder a redacted value shows instead of a secret. */
  redacted: string;
}

/** Where the activity log keeps a kind's changes. */
export interface ActivitySpec {
  /** The log scopes of its entries (a project: `Team` for settings, `Project` for its own fields). */
  scopes: readonly string[];
  /**
   * Whose project log to read: the item's parent project (`parent`), the item itself when it
   * is a project (`self`), or any project of its organization (`organization`: its entries
   * show in every project's log).
   */
  log: 'parent' | 'self' | 'organization';
  /**
   * Where the API logs several kinds under one scope (holdouts and saved metrics under
   * `Experiment`), the entries' `detail.type` that are this kind's (null: entries without one).
   * Absent: every entry of the scopes.
   */
  type?: string | null;
}
