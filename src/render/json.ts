// The JSON rendering: the contract's format_version "1" document, for CI and for saved plans.
import type { Plan } from '../plan/types.js';
import { safeJson } from '../util/printable.js';

export function renderJson(plan: Plan): string {
  // Hostile strings of the live workspace (a member's email holding escapes or bidi controls) as \uXXXX escapes.
  return `${safeJson(plan)}\n`;
}
