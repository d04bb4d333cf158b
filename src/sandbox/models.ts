// The sandbox models of the registered kinds, each declared beside its kind and loaded from it
// (ResourceKind.sandbox), so the CLI never loads sandbox code and a new kind needs no line here.
// loadSandboxModels() runs once, before anything of the sandbox uses them (startSandbox does).
import { KINDS } from '../resources/registry.js';
import type { ProjectMaker, SandboxModel } from './kind-model.js';

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

/** How projects are made, from the model that declares it (the project kind's). */
export function projectMaker(): ProjectMaker {
  const maker = sandboxModels().find((m) => m.projects)?.projects;
  if (!maker) throw new Error('no sandbox model makes projects');
  return maker;
}
