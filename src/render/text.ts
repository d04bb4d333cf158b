// The terminal rendering of a plan or drift report, Terraform-like: `+` create, `~` update,
// `-` delete, only the fields that change, long values as a line diff.
import { heldByText, type Plan } from '../plan/types.js';
import {
  annotationLines, closingLine, describedField, fieldAttribution, fieldHeading, inline, inlineField, itemAttribution, lineDiff, needsLineDiff, printable, SYMBOL,
  declaredLine, sinceLine, stepText, targetsLine, unmanagedHeading,
} from './values.js';

const COLORS = { '+': '\u001b[32m', '-': '\u001b[31m', '~': '\u001b[33m', '!': '\u001b[33m', dim: '\u001b[2m', bold: '\u001b[1m' } as const;
const RESET = '\u001b[0m';

export function renderText(plan: Plan, options: { color: boolean }): string {
  const paint = (style: keyof typeof COLORS, text: string) => (options.color ? `${COLORS[style]}${text}${RESET}` : text);
  const out: string[] = [];
  const since = sinceLine(plan);
  if (since) out.push(paint('dim', printable(since)), '');
  const targeted = targetsLine(plan);
  if (targeted) out.push(paint('dim', printable(targeted)), '');
  if (plan.changes.length > 0) {
    out.push(plan.kind === 'drift' ? `Live state on ${plan.base_url} has drifted from the configuration:` : `hogsync will make these changes on ${plan.base_url}:`, '');
    for (const change of plan.changes) {
      const symbol = SYMBOL[change.action];
      out.push(`  ${paint(symbol, `${symbol} ${printable(change.address)}`)}${change.action === 'delete' ? paint('dim', ' (delete)') : ''}${paint('dim', stepText(change.step))}`);
      const item = itemAttribution(change);
      if (item) out.push(`      ${paint('dim', item)}`);
      const declared = declaredLine(change);
      if (declared) out.push(`      ${paint('dim', `# ${printable(declared)}`)}`);
      const diff = (before: unknown, after: unknown, indent: string): void => {
        for (const line of lineDiff(before, after)) {
          const text = `${indent}${line.sign} ${line.text}`;
          out.push(line.sign === ' ' ? text : paint(line.sign, text));
        }
      };
      for (const field of change.fields) {
        const by = fieldAttribution(field);
        const described = describedField(plan, change, field);
        if (change.action === 'create' && !described) {
          out.push(`      ${field.path}: ${inlineField(field, 'after')}`);
        } else if (described) {
          out.push(`      ${fieldHeading(plan, field, true)}`);
          for (const line of described) {
            if (line.kind === 'text') {
              const text = `        ${line.sign} ${printable(line.text)}`;
              out.push(line.sign === ' ' ? text : paint(line.sign, text));
            } else {
              out.push(`        ${printable(line.label)} (as JSON):`);
              diff(line.before, line.after, '          ');
            }
          }
        } else if (needsLineDiff(field)) {
          out.push(`      ${fieldHeading(plan, field, false)}`);
          diff(field.before, field.after, '        ');
        } else {
          const line = plan.kind === 'drift'
            ? `      ${field.path}: live ${inlineField(field, 'before')}, files say ${inlineField(field, 'after')}`
            : `      ${field.path}: ${inlineField(field, 'before')} → ${inlineField(field, 'after')}`;
          out.push(by ? `${line} ${paint('dim', `— ${by}`)}` : line);
        }
      }
      for (const line of annotationLines(change)) out.push(`      ${paint('!', printable(line))}`);
      out.push('');
    }
  }
  if (plan.unmanaged.length > 0) {
    out.push(`Unmanaged (${unmanagedHeading(plan)}):`);
    for (const item of plan.unmanaged) {
      const held = item.held_by ? paint('dim', ` (${printable(heldByText(item.held_by))}: never pruned)`) : '';
      out.push(plan.fail_on_unmanaged ? `  ${paint('!', `? ${printable(item.address)}`)}${held}` : `  ? ${printable(item.address)}${held}`);
    }
    out.push('');
  }
  if (plan.warnings.length > 0) {
    out.push('Warnings:');
    for (const warning of plan.warnings) out.push(`  ${paint('!', `! ${printable(warning)}`)}`);
    out.push('');
  }
  out.push(paint('bold', closingLine(plan)));
  return `${out.join('\n')}\n`;
}
