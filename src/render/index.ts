// Every rendering of a plan or drift report, as one map of format → pure function of the
// plan (as octoDNS's plan outputs are). The CLI picks one by --format.
import type { Plan } from '../plan/types.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

export type PlanFormat = 'text' | 'json' | 'markdown' | 'junit';

export interface RenderOptions {
  /** ANSI colour (text only). */
  color: boolean;
}

export const PLAN_RENDERERS: Readonly<Record<PlanFormat, (plan: Plan, options: RenderOptions) => string>> = {
  text: (plan, options) => renderText(plan, options),
  json: (plan) => renderJson(plan),
  markdown: (plan) => renderMarkdown(plan),
  junit: (plan) => renderJunit(plan),
};

export function renderPlan(plan: Plan, format: string, options: RenderOptions): string {
  const render = PLAN_RENDERERS[format as PlanFormat] ?? PLAN_RENDERERS.text;
  return render(plan, options);
}
