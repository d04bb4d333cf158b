// The JSON rendering: the contract's format_version "1" document, for CI and for saved plans.
import type { Plan } from '../plan/types.js';

export function renderJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
