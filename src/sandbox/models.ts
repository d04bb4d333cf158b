// The sandbox models of the registered kinds, each declared beside its kind and loaded from it
// (ResourceKind.sandbox), so the CLI never loads sandbox code and a new kind needs no line here.
// loadSandboxModels() runs once, before anything of the sandbox uses them (startSandbox does).
import { KINDS } from '../resources/registry.js';
import type { SandboxModel } from './kind-model.js';

let loaded: readonly SandboxModel[] | undefined;

export async function loadSandboxModels(): Promise<readonly SandboxModel[]> {
  if (!loaded) {
    const modules = await Promise.all(KINDS.map(async (kind) => (kind.sandbox ? (await kind.sandbox()).model : undefined)));
    loaded = modules.filter((m): m is SandboxModel => m !== undefined);
  }
  return loaded;
}

/** The models, once loaded (a programming error otherwise: call loadSandboxModels first). */
export function sandboxModels(): readonly SandboxModel[] {
  if (!loaded) throw new Error('the sandbox models are not loaded: await loadSandboxModels() first');
  return loaded;
}
