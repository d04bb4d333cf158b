// The constants every test shares: where the CLI and the repository are, and the organization
// of the default sandbox workspace and of the examples.
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/hogsync.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SEED_EXAMPLE = fileURLToPath(new URL('../../examples/sandbox-seed.yaml', import.meta.url));
export const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
