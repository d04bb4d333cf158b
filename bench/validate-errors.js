// validate_errors: `hogsync validate` of one file of 20 000 roles, each with one wrong value (a
// feature_flags_access_level the schema refuses): reporting errors must grow with their number,
// not its square (a position or a neighbour looked up per error must not scan every error or
// node again). Beside it, the same file with valid values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ORG, median, timed } from './support.js';

const ROLES = 20_000;
const RUNS = 3;

function file(level) {
  let text = `organization: ${ORG}\nroles:\n`;
  for (let i = 0; i < ROLES; i++) text += `  - name: Role ${i}\n    feature_flags_access_level: ${level}\n`;
  return text;
}

export async function validateErrors() {
  const dir = mkdtempSync(join(tmpdir(), 'hogsync-bench-errors-'));
  try {
    writeFileSync(join(dir, 'wrong.yaml'), file(99));
    writeFileSync(join(dir, 'valid.yaml'), file(21));
    const wrong = [], valid = [];
    for (let i = 0; i < RUNS; i++) {
      const w = await timed(process.execPath, [BIN, 'validate', join(dir, 'wrong.yaml')]);
      if (w.code !== 1) throw new Error(`validate of the wrong file exited ${w.code}, not 1`);
      wrong.push(w.ms);
      const v = await timed(process.execPath, [BIN, 'validate', join(dir, 'valid.yaml')]);
      if (v.code !== 0) throw new Error(`validate of the valid file exited ${v.code}, not 0`);
      valid.push(v.ms);
    }
    return { errors: ROLES, wall_ms: Math.round(median(wrong)), valid_wall_ms: Math.round(median(valid)), targets: { wall_ms: 2000 } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
