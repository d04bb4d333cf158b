// Reading the configuration files as they were at a git revision (`--changed-since REF`), in
// the repository that holds the configuration paths (a CI job may run hogsync from elsewhere).
// git runs without a shell, with arguments it cannot take for options: the revision is
// checked (never starting with "-"), resolved with --end-of-options, and files are read by
// object name (`SHA:path`) through one `git cat-file --batch`.
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';
import { isUtf8 } from 'node:buffer';
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { HogsyncError } from '../errors.js';
import { MAX_FILE_BYTES, type ReadResult } from './files.js';

export interface RevisionFiles {
  /** The repository's top directory. */
  repository: string;
  /** The revision as the user gave it, and the commit it names. */
  revision: string;
  commit: string;
  /** The configuration files at that commit, named as the paths name them now. */
  files: string[];
  read(file: string): Promise<ReadResult>;
}

const YAML_FILE = /\.ya?ml$/i;
const GIT_ENV = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };

/** A revision git will take as a revision: not an option, no control characters, not empty. */
export function checkRevision(revision: string): void {
  // eslint-disable-next-line no-control-regex
  if (revision === '' || revision.startsWith('-') || /[\u0000-\u001f\u007f]/.test(revision)) {
    throw new HogsyncError('usage', `--changed-since: ${JSON.stringify(revision)} is not a git revision (a branch, tag or commit such as origin/main; it cannot start with "-")`);
  }
}

// Loaded when git is first run (--changed-since): every plan loads this module, few run git.
let childProcess: typeof ChildProcess | undefined;
const processes = (): typeof ChildProcess => (childProcess ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess);

function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    processes().execFile('git', args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) { done(stdout); return; }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') { fail(new HogsyncError('usage', '--changed-since needs git, which is not installed or not on PATH')); return; }
      const reason = (stderr || err.message).trim().split('\n').filter(Boolean).pop() ?? 'failed';
      fail(Object.assign(new HogsyncError('usage', reason), { exitCode: typeof code === 'number' ? code : 1 }));
    });
  });
}

/** The top directory of the git repository holding `path` (a file or a directory). */
async function repositoryOf(path: string): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  const dir = info?.isDirectory() ? path : dirname(path);
  try {
    return (await git(['rev-parse', '--show-toplevel'], dir)).trim();
  } catch (err) {
    if (err instanceof HogsyncError && /needs git/.test(err.message)) throw err;
    throw new HogsyncError('usage', `--changed-since: ${path} is not in a git repository`);
  }
}

const posixRelative = (from: string, to: string) => relative(from, to).split(sep).join('/');

/**
 * The configuration files of `paths` (files or directories, as for loading) at `revision`,
 * in the repository that holds them. Files that did not exist then are simply absent.
 */
export async function filesAtRevision(paths: readonly string[], revision: string, cwd: string): Promise<RevisionFiles> {
  checkRevision(revision);
  const given = paths.length === 0 ? ['hogsync.yaml'] : paths;
  const absolute = await Promise.all(given.map(async (p) => {
    const full = isAbsolute(p) ? p : resolve(cwd, p);
    return realpath(full).catch(() => full);
  }));
  const repos = await Promise.all(absolute.map(repositoryOf));
  const repository = await realpath(repos[0] as string).catch(() => repos[0] as string);
  for (const [i, repo] of repos.entries()) {
    const real = await realpath(repo).catch(() => repo);
    if (real !== repository) {
      throw new HogsyncError('usage', `--changed-since: the configuration paths are in two git repositories: ${given[0]} (${repository}) and ${given[i]} (${real})`);
    }
  }

  let commit: string;
  try {
    commit = (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], repository)).trim();
  } catch {
    commit = '';
  }
  if (!/^[0-9a-f]{40,64}$/.test(commit)) {
    const shallow = (await git(['rev-parse', '--is-shallow-repository'], repository).catch(() => '')).trim() === 'true';
    const hint = shallow ? '; this clone is shallow: fetch the revision first (actions/checkout: fetch-depth: 0)' : '';
    throw new HogsyncError('usage', `--changed-since: no commit ${JSON.stringify(revision)} in the git repository ${repository}${hint}`);
  }

  // The files each path named at that commit: a directory's *.yaml / *.yml then, a file if it existed.
  const files: string[] = [];
  const objects = new Map<string, string>();
  for (const [i, p] of given.entries()) {
    const rel = posixRelative(repository, absolute[i] as string);
    if (rel.startsWith('..')) throw new HogsyncError('usage', `--changed-since: ${p} is outside the git repository ${repository}`);
    const listing = await git(['ls-tree', '-z', '--full-name', commit, '--', rel === '' ? '.' : rel, ...(rel === '' ? [] : [`${rel}/`])], repository);
    const entries = listing.split('\0').filter(Boolean).map((line) => {
      const [meta, name] = line.split('\t') as [string, string];
      return { type: meta.split(' ')[1], name };
    });
    const asFile = entries.find((e) => e.name === rel && e.type === 'blob');
    const add = (display: string, name: string) => {
      if (objects.has(display)) return;
      objects.set(display, `${commit}:${name}`);
      files.push(display);
    };
    if (asFile) { add(p, rel); continue; }
    const prefix = rel === '' ? '' : `${rel}/`;
    const names = entries
      .filter((e) => e.type === 'blob' && e.name.startsWith(prefix) && !e.name.slice(prefix.length).includes('/'))
      .map((e) => e.name.slice(prefix.length))
      .filter((n) => YAML_FILE.test(n) && !n.startsWith('.'))
      .sort();
    const base = p.endsWith('/') ? p.slice(0, -1) : p;
    for (const name of names) add(`${base}/${name}`, `${prefix}${name}`);
  }

  const contents = await catFiles(repository, files.map((f) => objects.get(f) as string));
  return {
    repository, revision, commit, files,
    read: async (file) => {
      const at = { file, line: 1, col: 1 };
      let bytes = contents.get(objects.get(file) ?? '');
      // A file a configuration file names (an insight's sql_file), read at the same commit.
      if (!objects.has(file)) bytes = await blobAt(repository, commit, resolve(cwd, file));
      if (!bytes) return objects.has(file) ? { text: '' } : { problem: { position: at, message: `no such file at ${revision}` } };
      if (bytes.length > MAX_FILE_BYTES) return { problem: { position: at, message: `file is too large: ${bytes.length} bytes (the limit is ${MAX_FILE_BYTES} bytes, 5 MiB)` } };
      if (!isUtf8(bytes)) return { problem: { position: at, message: 'file is not valid UTF-8 text' } };
      return { text: bytes.toString('utf8').replace(/^\uFEFF/, '') };
    },
  };
}

/** One file's content at a commit, or undefined where the commit has no such file. */
async function blobAt(repository: string, commit: string, path: string): Promise<Buffer | undefined> {
  const rel = posixRelative(repository, await realpath(path).catch(() => path));
  if (rel.startsWith('..')) return undefined;
  return (await catFiles(repository, [`${commit}:${rel}`])).get(`${commit}:${rel}`);
}

/** Reads blobs by object name with one `git cat-file --batch`. */
function catFiles(repository: string, names: readonly string[]): Promise<Map<string, Buffer>> {
  return new Promise((done, fail) => {
    const out = new Map<string, Buffer>();
    // Object names are one per line: a path with a line break cannot be named this way (nor is it a config file).
    const asked = names.filter((n) => !n.includes('\n'));
    if (asked.length === 0) { done(out); return; }
    const child = processes().spawn('git', ['cat-file', '--batch'], { cwd: repository, env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    child.on('error', (e) => fail(new HogsyncError('usage', `--changed-since: cannot run git: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) { fail(new HogsyncError('usage', `--changed-since: git cat-file failed: ${err.trim() || `exit ${code}`}`)); return; }
      const all = Buffer.concat(chunks);
      let at = 0;
      for (const name of asked) {
        const eol = all.indexOf(0x0a, at);
        if (eol === -1) break;
        const header = all.subarray(at, eol).toString('utf8');
        at = eol + 1;
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (!m) continue; // "<name> missing": the file did not exist then
        const size = Number(m[2]);
        if (m[1] === 'blob') out.set(name, all.subarray(at, at + size));
        at += size + 1;
      }
      done(out);
    });
    child.stdin.end(asked.map((n) => `${n}\n`).join(''));
  });
}
