// The Markdown rendering, for a pull-request comment: a summary table, then one collapsible
// section per resource (GitHub and GitLab both render <details>).
import { attributionTime } from '../plan/attribution.js';
import { heldByText, type Change, type Plan } from '../plan/types.js';
import {
  annotationLines, closingLine, describedField, fieldAttribution, inline, inlineField, itemAttribution, lineDiff, needsLineDiff, printable, SYMBOL,
  declaredLine, sinceLine, stepText, targetsLine, unmanagedHeading,
} from './values.js';

const ACTION_WORD = { create: 'create', update: 'update', delete: 'delete' } as const;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A code fence longer than any run of backticks inside the block. */
function fence(body: string): string {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/** In a diff block, a changed line starts with `!` (highlighted as changed), not `~`. */
const DIFF_SIGN = { '+': '+', '-': '-', '~': '!', ' ': ' ' } as const;

function changeBody(plan: Plan, change: Change): string[] {
  const lines: string[] = [];
  for (const field of change.fields) {
    const described = describedField(plan, change, field);
    if (change.action === 'create' && !described) lines.push(`+ ${field.path}: ${inlineField(field, 'after')}`);
    else if (described) {
      lines.push(`  ${field.path}${plan.kind === 'drift' ? ' (files → live)' : ''}:`);
      for (const line of described) {
        if (line.kind === 'text') {
          lines.push(`${DIFF_SIGN[line.sign]}   ${printable(line.text)}`);
        } else {
          lines.push(`    ${printable(line.label)} (as JSON):`);
          for (const l of lineDiff(line.before, line.after)) lines.push(`${l.sign}     ${l.text}`);
        }
      }
    } else if (needsLineDiff(field)) {
      lines.push(`  ${field.path}${plan.kind === 'drift' ? ' (- live, + files)' : ''}:`);
      for (const l of lineDiff(field.before, field.after)) lines.push(`${l.sign}   ${l.text}`);
    } else {
      // A drift report says which side is which, as the text report does (live, files say).
      const [live, files] = plan.kind === 'drift' ? ['   (live)', '   (files)'] : ['', ''];
      lines.push(`- ${field.path}: ${inlineField(field, 'before')}${live}`, `+ ${field.path}: ${inlineField(field, 'after')}${files}`);
    }
  }
  if (change.action === 'delete') lines.push(`- ${printable(change.address)}`);
  return lines;
}

function changeSection(plan: Plan, change: Change): string {
  const n = change.fields.length;
  const detail = change.action === 'update' ? ` (${n} field${n === 1 ? '' : 's'})` : '';
  const out = ['<details>', `<summary><code>${SYMBOL[change.action]} ${ACTION_WORD[change.action]}</code> <b>${escapeHtml(printable(change.address))}</b>${escapeHtml(stepText(change.step))}${detail}</summary>`, ''];
  const declared = declaredLine(change);
  if (declared) out.push(`<sub>${escapeHtml(printable(declared))}</sub>`, '');
  const body = changeBody(plan, change).join('\n');
  if (body) {
    const f = fence(body);
    out.push(`${f}diff`, body, f, '');
  }
  // Who changed it, and when (drift attribution): per field, or for the item as a whole.
  const item = itemAttribution(change);
  if (item) out.push(`<sub>${escapeHtml(item)}</sub>`, '');
  const by = change.fields.flatMap((f) => {
    const text = fieldAttribution(f);
    return text ? [`- <code>${escapeHtml(printable(f.path))}</code> ${escapeHtml(text)}`] : [];
  });
  if (by.length > 0) out.push(...by, '');
  for (const line of annotationLines(change)) out.push(`> ${escapeHtml(printable(line))}`, '');
  out.push('</details>', '');
  return out.join('\n');
}

/** GitHub refuses comments over 65 536 characters; stay below with room for a header. */
export const MARKDOWN_MAX_CHARS = 60_000;

export function renderMarkdown(plan: Plan, maxChars: number = MARKDOWN_MAX_CHARS): string {
  const title = plan.kind === 'drift' ? `hogsync drift report${plan.since !== undefined ? ` since ${attributionTime(plan.since)}` : ''}` : 'hogsync plan';
  const s = plan.summary;
  const out: string[] = [
    `### ${title}`,
    '',
    `${closingLine(plan)}`,
    '',
    ...(sinceLine(plan) ? [`> ${escapeHtml(printable(sinceLine(plan) as string))}`, ''] : []),
    ...(targetsLine(plan) ? [`> ${escapeHtml(printable(targetsLine(plan) as string))}`, ''] : []),
    '| create | update | delete | unchanged | unmanaged |',
    '|---:|---:|---:|---:|---:|',
    `| ${s.create} | ${s.update} | ${s.delete} | ${s.unchanged} | ${s.unmanaged} |`,
    '',
  ];
  // Warnings first: they must survive the cut below.
  for (const warning of plan.warnings) out.push(`> [!WARNING]`, `> ${escapeHtml(printable(warning))}`, '');
  let size = out.join('\n').length;
  let shown = 0;
  // Room kept for the closing note, the unmanaged list's frame and the fingerprint.
  const budget = maxChars - 1_000;
  let named = 0;
  // A reviewer must never miss that a change exists: room is kept to name every change, and
  // diffs are shown in full while they fit besides.
  const briefs = plan.changes.map((change) => `- <code>${SYMBOL[change.action]} ${ACTION_WORD[change.action]}</code> <b>${escapeHtml(printable(change.address))}</b>${escapeHtml(stepText(change.step))} (diff not shown)\n`);
  let namesLeft = briefs.reduce((sum, b) => sum + b.length + 1, 0);
  for (const [i, change] of plan.changes.entries()) {
    const brief = briefs[i] as string;
    namesLeft -= brief.length + 1;
    const section = changeSection(plan, change);
    const entry = size + section.length + namesLeft <= budget ? section : size + brief.length <= budget ? brief : undefined;
    if (entry === undefined) break;
    out.push(entry);
    size += entry.length + 1;
    if (entry === section) shown++;
    named++;
  }
  if (shown < plan.changes.length) {
    const missing = plan.changes.length - named;
    const tail = missing > 0 ? `; ${missing} more change${missing === 1 ? ' is' : 's are'} not even named` : '';
    out.push('', `> ${plan.changes.length - shown} change${plan.changes.length - shown === 1 ? '' : 's'} shown without a diff: this comment would pass ${maxChars} characters${tail}. The text and JSON plans show every change in full.`, '');
  }
  if (plan.unmanaged.length > 0) {
    const list = plan.unmanaged.map((item) => `- \`${printable(item.address).replace(/`/g, "'")}\`${item.held_by ? ` (${escapeHtml(printable(heldByText(item.held_by)))}: never pruned)` : ''}`);
    const room = Math.max(0, budget - size);
    let kept = 0;
    for (let used = 0; kept < list.length && used + (list[kept] as string).length + 1 <= room; kept++) used += (list[kept] as string).length + 1;
    out.push('<details>', `<summary>${plan.unmanaged.length} unmanaged item${plan.unmanaged.length === 1 ? '' : 's'} (${unmanagedHeading(plan)})</summary>`, '');
    out.push(...list.slice(0, kept));
    if (kept < list.length) out.push(`- … and ${list.length - kept} more`);
    out.push('', '</details>', '');
  }
  out.push(`<sub>fingerprint <code>${plan.fingerprint}</code></sub>`);
  return `${out.join('\n')}\n`;
}
