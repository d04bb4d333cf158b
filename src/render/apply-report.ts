// Renderings of an apply report: per change applied / failed / skipped, the notes a kind
// attached (DNS targets of new proxy records), and warnings about fields the API did not take.
import type { ApplyReport, ChangeOutcome } from '../apply/execute.js';
import { changeKey } from '../plan/types.js';
import { printable, stepText, SYMBOL } from './values.js';
import { safeJson } from '../util/printable.js';

export function outcomeLine(o: ChangeOutcome, done?: number, total?: number): string {
  const counter = done === undefined ? '' : `[${done}/${total}] `;
  const detail = o.status === 'applied' ? '' : `: ${o.error ?? ''}`;
  return printable(`${counter}${SYMBOL[o.action]} ${o.address}${stepText(o.step)} ${o.status}${detail}`);
}

export function renderApplyText(report: ApplyReport): string {
  const out: string[] = [];
  for (const o of report.outcomes) {
    out.push(`  ${outcomeLine(o)}`);
    for (const note of report.notes.get(changeKey(o)) ?? []) out.push(printable(`    ${note}`));
  }
  if (report.warnings.length > 0) {
    out.push('', 'Warnings:');
    for (const w of report.warnings) out.push(`  ! ${printable(w)}`);
  }
  const s = report.summary;
  const pending = s.pending ?? 0;
  const verdict = s.failed + s.skipped + pending > 0 ? 'Apply incomplete' : report.unverified !== undefined ? 'Apply unverified' : 'Apply complete';
  out.push('', `${verdict}: ${s.applied} applied, ${s.failed} failed, ${s.skipped} skipped${pending > 0 ? `, ${pending} pending approval` : ''}.`);
  if (report.unverified !== undefined) out.push(printable(`The applied changes are unverified: ${report.unverified}. Run plan to see what the API holds now.`));
  for (const hint of report.hints ?? []) out.push(printable(`hint: ${hint}`));
  if (s.failed + s.skipped > 0) {
    out.push(report.waits === true
      ? 'Run apply again once the API has finished what the failures above wait for; it converges then.'
      : report.againHelps === false
        ? 'Running apply again will not help until the causes above are fixed; then it converges.'
        : 'Run apply again to converge what failed or was skipped.');
  }
  if (pending > 0) out.push('Pending changes wait for an approver in the web app (never retried); once approved, a new plan shows no change for them.');
  return `${out.join('\n')}\n`;
}

export function renderApplyJson(report: ApplyReport, meta: { base_url: string; fingerprint: string }): string {
  const unverified = report.unverified === undefined ? {} : { unverified: report.unverified };
  return `${safeJson({ format_version: '1', kind: 'apply', ...meta, summary: report.summary, ...unverified, changes: report.outcomes, warnings: report.warnings })}\n`;
}
