// The logic of the GitHub Action (action.yml): runs hogsync with the action's inputs, posts the
// Markdown plan on the pull request as one comment updated in place, writes the job summary,
// and sets the outputs `exit-code` and `changes`.
//
// Inputs arrive only as environment variables (INPUT_COMMAND, INPUT_PATHS, INPUT_ARGS,
// INPUT_COMMENT, HOGSYNC_API_KEY, HOGSYNC_BASE_URL, GITHUB_TOKEN), never as text of a shell
// step, and `args`/`paths` are split here and handed to hogsync as an argument list: a branch
// name or an `args` value cannot become shell code. GitHub's API is called with the global fetch.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MARKER = '<!-- hogsync-plan -->';
const COMMANDS = ['validate', 'plan', 'apply', 'drift'];
const BIN = fileURLToPath(new URL('../bin/hogsync.js', import.meta.url));
/** GitHub refuses comments longer than this. */
const MAX_COMMENT = 65_536;

/** Splits `args` like a shell would split words (quotes and backslashes), without running one. */
export function splitArgs(text) {
  const words = [];
  let word = '';
  let inWord = false;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`args: unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}

/** `paths`: one per line, or separated by spaces on a single line. */
export function splitPaths(text) {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return [];
  return (trimmed.includes('\n') ? trimmed.split('\n') : trimmed.split(/\s+/)).map((p) => p.trim()).filter(Boolean);
}

function runHogsync(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: env.GITHUB_WORKSPACE || process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

function prNumber(env) {
  if (!['pull_request', 'pull_request_target'].includes(env.GITHUB_EVENT_NAME ?? '') || !env.GITHUB_EVENT_PATH) return undefined;
  try {
    const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
    const n = event.pull_request?.number ?? event.number;
    return Number.isInteger(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

class GitHubError extends Error {
  constructor(method, path, status, reason) {
    super(`${method} ${path} → ${status}${reason ? `: ${reason}` : ''}`);
    this.status = status;
    this.reason = reason;
  }
}

/** One call to GitHub's REST API. */
async function github(env, method, path, body) {
  const base = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${env.GITHUB_TOKEN}`,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'hogsync-action',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (!res.ok) throw new GitHubError(method, path.replace(/\?.*$/, ''), res.status, typeof data?.message === 'string' ? data.message : text.slice(0, 200));
  return data;
}

/**
 * Posts `body` as the pull request's hogsync comment: the comment that carries MARKER is
 * updated in place, or one is created. Answers what it did: 'created' or 'updated'.
 */
export async function upsertComment(env, number, body) {
  const repo = env.GITHUB_REPOSITORY;
  for (let page = 1; page <= 50; page++) {
    const comments = await github(env, 'GET', `/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`);
    const mine = Array.isArray(comments) ? comments.find((c) => typeof c.body === 'string' && c.body.includes(MARKER)) : undefined;
    if (mine) {
      await github(env, 'PATCH', `/repos/${repo}/issues/comments/${mine.id}`, { body });
      return 'updated';
    }
    if (!Array.isArray(comments) || comments.length < 100) break;
  }
  await github(env, 'POST', `/repos/${repo}/issues/${number}/comments`, { body });
  return 'created';
}

function commentBody(command, result) {
  let text;
  if (result.code === 1) {
    text = `### hogsync ${command} failed (exit 1)\n\n\`\`\`text\n${(result.stderr || result.stdout).trim().replaceAll('```', "'''")}\n\`\`\`\n`;
  } else {
    text = result.stdout;
  }
  const body = `${MARKER}\n${text}`;
  if (body.length <= MAX_COMMENT) return body;
  return `${MARKER}\n### hogsync ${command}\n\nThe plan is too long for a comment (${body.length} characters); it is in the job summary and the run's log.\n`;
}

/**
 * Runs the action. `env` is its whole input; `log` receives workflow commands and messages, and
 * `echo` what hogsync printed ('stdout' or 'stderr', for the job's log). Answers the step's exit code.
 */
export async function runAction(env, log = (line) => process.stdout.write(`${line}\n`), echo = (stream, text) => process[stream].write(text)) {
  const command = (env.INPUT_COMMAND || 'plan').trim();
  if (!COMMANDS.includes(command)) {
    log(`::error title=hogsync action::command must be one of ${COMMANDS.join(', ')} (got ${JSON.stringify(command)})`);
    return 1;
  }
  let userArgs;
  try {
    userArgs = splitArgs(env.INPUT_ARGS ?? '');
  } catch (err) {
    log(`::error title=hogsync action::${err.message}`);
    return 1;
  }
  const wantComment = /^(true|yes|1)$/i.test((env.INPUT_COMMENT ?? '').trim());
  const number = prNumber(env);

  // hogsync's environment: the key and base URL only when given (an empty input means unset).
  const childEnv = { ...env };
  for (const name of Object.keys(childEnv)) if (name.startsWith('INPUT_') || name === 'GITHUB_TOKEN') delete childEnv[name];
  for (const name of ['HOGSYNC_API_KEY', 'HOGSYNC_BASE_URL']) if (!childEnv[name]) delete childEnv[name];
  childEnv.NO_COLOR = '1';
  // hogsync writes its errors, warnings and planned changes as workflow annotations in a job.
  childEnv.GITHUB_ACTIONS = 'true';

  const scratch = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), 'hogsync-action-'));
  try {
    const args = [command, ...splitPaths(env.INPUT_PATHS), ...userArgs];
    const hasFormat = userArgs.some((a) => a === '--format' || a.startsWith('--format='));
    let planFile;
    if (command === 'plan') {
      const outIndex = userArgs.findIndex((a) => a === '--out' || a.startsWith('--out='));
      if (outIndex === -1) {
        planFile = join(scratch, 'plan.json');
        args.push('--out', planFile);
      } else {
        planFile = userArgs[outIndex].startsWith('--out=') ? userArgs[outIndex].slice(6) : userArgs[outIndex + 1];
      }
      // The comment and the job summary show the Markdown plan.
      if (!hasFormat) args.push('--format', 'markdown');
    }

    const run = await runHogsync(args, childEnv);
    // Workflow commands (annotations) go to the log as commands; the comment shows the rest.
    const commands = run.stderr.split('\n').filter((line) => line.startsWith('::'));
    const result = { ...run, stderr: run.stderr.split('\n').filter((line) => !line.startsWith('::')).join('\n') };
    if (result.stdout) echo('stdout', result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`);
    if (result.stderr) echo('stderr', result.stderr);
    for (const command of commands) log(command);

    const changes = countChanges(command, result, planFile && resolve(env.GITHUB_WORKSPACE || process.cwd(), planFile), userArgs);
    if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `exit-code=${result.code}\nchanges=${changes}\n`);
    const markdown = command === 'plan' && !hasFormat;
    if (env.GITHUB_STEP_SUMMARY && markdown && result.code !== 1) appendFileSync(env.GITHUB_STEP_SUMMARY, `${result.stdout}\n`);

    if (wantComment) {
      if (command !== 'plan') log(`::notice title=hogsync action::comment is posted for command plan only (this was ${command})`);
      else if (number === undefined) log('::notice title=hogsync action::not a pull request: no comment posted');
      else if (!env.GITHUB_TOKEN) log('::warning title=hogsync plan comment::no GitHub token: the plan was not posted (pass github-token, or leave it at its default)');
      else {
        try {
          const did = await upsertComment(env, number, commentBody(command, result));
          log(`${did === 'created' ? 'Posted' : 'Updated'} the plan comment on pull request #${number}.`);
        } catch (err) {
          if (err instanceof GitHubError && err.status === 403) {
            // A pull request from a fork runs with a read-only token: the plan itself is fine.
            log(`::warning title=hogsync plan comment not posted::GitHub refused it (403: ${err.reason || 'forbidden'}). A pull request from a fork gets a read-only token; the plan is in this job's summary and log.`);
          } else {
            log(`::warning title=hogsync plan comment not posted::${err.message}`);
          }
        }
      }
    }
    return result.code;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The `changes` output: how many changes (create + update + delete) plan or drift found; empty when unknown. */
function countChanges(command, result, planFile, userArgs) {
  // A failed run wrote no plan (a file there is an older run's).
  if (result.code !== 0 && result.code !== 2) return '';
  let doc;
  try {
    if (command === 'plan' && planFile) doc = JSON.parse(readFileSync(planFile, 'utf8'));
    else if (command === 'drift' && /--format[= ]json/.test(userArgs.join(' '))) doc = JSON.parse(result.stdout);
  } catch {
    return '';
  }
  const s = doc?.summary;
  if (!s) return '';
  return String((s.create ?? 0) + (s.update ?? 0) + (s.delete ?? 0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runAction(process.env).then(
    (code) => { process.exitCode = code; },
    (err) => { process.stdout.write(`::error title=hogsync action::${err?.message ?? err}\n`); process.exitCode = 1; },
  );
}
