// The steps `hogsync plan` runs, as one module for callers that drive them one by one and time
// each (the plan benchmark, bench/plan-worker.js): load the files, read and compare, render.
// The build bundles it as an entry beside the CLI's (scripts/bundle-cli.js), sharing its code.
export { loadConfig } from '../config/load.js';
export { plannedReads } from '../state/targets.js';
export { streamPlan } from './plan.js';
export { renderJson } from '../render/json.js';
export { renderText } from '../render/text.js';
export { apiSettings } from '../cli/options.js';
export { createClient } from '../http/client.js';
