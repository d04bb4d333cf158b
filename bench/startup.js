// startup: `hogsync --version` and `hogsync validate examples/basic` against `node -e 0`.
import { BIN, median, timed } from './support.js';

const RUNS = 21;

async function sample(args) {
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push((await timed(process.execPath, args)).ms);
  return median(times);
}

export async function startup() {
  // Interleave the three so that machine noise hits all of them alike.
  await sample(['-e', '0']);
  const base = [], version = [], validate = [];
  for (let round = 0; round < 3; round++) {
    base.push(await sample(['-e', '0']));
    version.push(await sample([BIN, '--version']));
    validate.push(await sample([BIN, 'validate', 'examples/basic']));
  }
  const node = median(base);
  return {
    node_ms: round1(node),
    version_ms: round1(median(version)),
    validate_ms: round1(median(validate)),
    version_ratio: round2(median(version) / node),
    validate_ratio: round2(median(validate) / node),
    targets: { version_ratio: 1.2, validate_ratio: 2 },
  };
}

const round1 = (n) => Math.round(n * 10) / 10;
const round2 = (n) => Math.round(n * 100) / 100;
