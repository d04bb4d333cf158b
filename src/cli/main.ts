// The command line: every verb of the contract, its flags and help. Each verb's module is
// loaded only when that verb runs, so `--version` and `validate` start fast.
import { Command, CommanderError, Option } from 'commander';
import { VERSION } from '../version.js';
import { DEFAULT_MAX_DELETE_PERCENT, DEFAULT_MAX_PREVIEWS } from '../plan/limits.js';
import { refuseCredentials } from '../http/origin.js';
import { baseUrlOrigin, withApiOptions, withOutputOptions } from './options.js';
import { printable } from '../util/printable.js';
import { maskSecrets, maskStream } from '../util/secrets.js';
import { reportError } from './output.js';
import { errorAnnotations, writeAnnotations } from './annotations.js';
import { ConfigErrors } from '../config/problems.js';
import { adviceFor, type BaseUrlOrigin } from './advice.js';
import { setResendSecrets } from '../resources/write-only.js';

type VerbModule = { run(args: string[], opts: Record<string, unknown>): Promise<number> };

/** Each command's module, loaded when it runs (named one by one, so the build can bundle them). */
const VERBS: Record<string, () => Promise<VerbModule>> = {
  validate: () => import('./validate.js'),
  plan: () => import('./plan.js'),
  apply: () => import('./apply.js'),
  drift: () => import('./drift.js'),
  export: () => import('./export.js'),
  show: () => import('./show.js'),
  fmt: () => import('./fmt.js'),
  sandbox: () => import('./sandbox.js'),
  schema: () => import('./schema.js'),
};

const EXIT_CODES = `
Exit codes:
  0  success, no changes
  1  error (bad configuration, API failure, failed apply, stale plan)
  2  changes present (plan --detailed-exitcode, drift)
  3  apply refused by a safety rule`;

const ENVIRONMENT = `
Environment:
  HOGSYNC_API_KEY    personal API key (the only way to pass it)
  HOGSYNC_BASE_URL   API base URL (default https://us.posthog.com)
  NO_COLOR           disable colour`;

/** A repeatable option's values (no default: help would show `(default: [])`). */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A repeatable option that also takes a comma-separated list (`--kind experiments,experiment_holdouts`). */
function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

/** An option whose default help shows as written: commander quotes string defaults (`(default: "10")`). */
function defaulted(flags: string, description: string, value: string): Option {
  return new Option(flags, description).default(value, value);
}

// No defaults here: the common options may also stand before the verb, and a verb's default
// must not hide a value given there (apiSettings applies the defaults).
function withCommon(cmd: Command, api = true): Command {
  return withOutputOptions(api ? withApiOptions(cmd) : cmd);
}

/** Options of the verb, over the common options given before it. */
function mergedOptions(program: Command, cmd: Command): Record<string, unknown> {
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const merged: Record<string, unknown> = { ...defined(program.opts()), ...defined(cmd.opts()) };
  merged.color = program.opts().color !== false && cmd.opts().color !== false;
  merged.verbose = program.opts().verbose === true || cmd.opts().verbose === true;
  return merged;
}

/**
 * A parse error as printed: an unknown `--name=value` is named without its value (it may be a
 * key typed into the wrong option), and nothing of the command line reaches the terminal raw.
 */
export function parseErrorText(text: string, argv: readonly string[]): string {
  let out = text;
  for (const arg of argv) {
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) out = out.split(`'${arg}'`).join(`'${arg.slice(0, eq)}=…'`);
    // `-kVALUE`: a short option with its value attached.
    else if (/^-[^-]./.test(arg)) out = out.split(`'${arg}'`).join(`'${arg.slice(0, 2)}…'`);
  }
  return maskSecrets(out).split('\n').map(printable).join('\n');
}

export function buildProgram(runVerb: (verb: string, args: string[], opts: Record<string, unknown>) => Promise<void>, argv: readonly string[] = []): Command {
  const program = new Command('hogsync')
    // Set before the verbs are added: they inherit it.
    .configureOutput({ outputError: (text, write) => write(parseErrorText(text, argv)) })
    .description('Declarative configuration for an analytics workspace: validate, plan, apply, drift, export.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)');
  withCommon(program)
    .addHelpText('after', `
Examples:
  $ hogsync validate config/
  $ HOGSYNC_API_KEY=phx_… hogsync plan config/ --out plan.json
  $ hogsync apply --plan plan.json --auto-approve
${EXIT_CODES}
${ENVIRONMENT}`);

  const verb = (name: string) => async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = mergedOptions(program, cmd);
    setResendSecrets(opts.resendSecrets === true);
    await runVerb(name, cmd.args, opts);
  };

  withCommon(program.command('validate').argument('[paths...]', 'files or directories (default hogsync.yaml)'), false)
    .description('check configuration files offline against the schema')
    .addHelpText('after', `
Examples:
  $ hogsync validate                       # ./hogsync.yaml
  $ hogsync validate config/ extra.yaml    # every *.yaml/*.yml of config/, then extra.yaml
Every error of every file is printed as file:line:col: message. Exit 0 valid, 1 invalid.`)
    .action(verb('validate'));

  withCommon(program.command('plan').argument('[paths...]', 'files or directories (default hogsync.yaml)'))
    .description('read live state and show what apply would change')
    .option('--out <file>', 'save the plan as JSON (for apply --plan)')
    .addOption(defaulted('--format <format>', 'output format', 'text').choices(['text', 'json', 'markdown']))
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none')
    .option('--attribute', 'say who changed each live value the plan changes, and when (reads the activity log: one request per changed item)')
    .option('--target <address>', 'limit to items matching KIND:ORG/KEY (repeatable; * matches anything), e.g. feature_flag:*/111/*', collect)
    .option('--changed-since <git-ref>', 'limit to items whose declarations differ from the files at this git revision')
    .option('--resend-secrets', 'send every declared write-only secret again (a hog function\'s secret inputs), for a rotation; otherwise stored secrets are kept')
    .option('--no-preview', 'skip the previews (a flag\'s blast radius: one request per condition set of each new or changed flag); what the API deletes or rewrites without a word beside a change (an insight\'s alerts) is still named')
    .option('--max-previews <n>', `preview at most this many changes; the others are named in one note (default ${DEFAULT_MAX_PREVIEWS})`)
    .addHelpText('after', `
Examples:
  $ hogsync plan config/
  $ hogsync plan config/ --out plan.json --format markdown > plan.md
  $ hogsync plan config/ --detailed-exitcode || [ $? -eq 2 ]
  $ hogsync plan config/ --target 'feature_flag:*/111/*' --target 'role:*/Engineers'
  $ hogsync plan config/ --changed-since origin/main --out plan.json   # only what a pull request changes`)
    .action(verb('plan'));

  withCommon(program.command('apply').argument('[paths...]', 'files or directories (default hogsync.yaml)'))
    .description('make the live workspace match the files')
    .option('--plan <file>', 'apply exactly this saved plan (refused if live state or files changed)')
    .option('--auto-approve', 'do not ask for confirmation (required without a terminal)')
    .option('--allow-delete <kind/key>', 'allow deleting this item, e.g. project/777 (repeatable)', collect)
    .addOption(defaulted('--max-delete-percent <n>', 'refuse to delete more than this share of one kind', String(DEFAULT_MAX_DELETE_PERCENT)))
    .addOption(defaulted('--format <format>', 'report format', 'text').choices(['text', 'json']))
    .option('--target <address>', 'limit to items matching KIND:ORG/KEY (repeatable; * matches anything), e.g. feature_flag:*/111/*', collect)
    .option('--resend-secrets', 'send every declared write-only secret again (a hog function\'s secret inputs), for a rotation; otherwise stored secrets are kept')
    .option('--no-preview', 'skip the previews of the plan shown before applying (a flag\'s blast radius)')
    .option('--max-previews <n>', `preview at most this many changes; the others are named in one note (default ${DEFAULT_MAX_PREVIEWS})`)
    .addHelpText('after', `
Examples:
  $ hogsync apply config/                       # asks before changing anything
  $ hogsync apply --plan plan.json --auto-approve
  $ hogsync apply config/ --auto-approve --allow-delete project/777
  $ hogsync apply config/ --resend-secrets      # after rotating a secret input in the environment`)
    .action(verb('apply'));

  withCommon(program.command('drift').argument('[paths...]', 'files or directories (default hogsync.yaml)'))
    .description('report where live state left the files (exit 2 when it did), and who changed it when (activity log)')
    .addOption(defaulted('--format <format>', 'report format', 'text').choices(['text', 'json', 'markdown', 'junit']))
    .option('--out <file>', 'write the report to a file')
    .option('--fail-on-unmanaged', 'exit 2 also when live items exist that no file declares')
    .option('--target <address>', 'limit to items matching KIND:ORG/KEY (repeatable; * matches anything), e.g. feature_flag:*/111/*', collect)
    .option('--changed-since <git-ref>', 'limit to items whose declarations differ from the files at this git revision')
    .option('--since <when>', 'a change feed: only what the activity logs name since then (25h, 7d, or an ISO time), and the kinds they do not record')
    .addHelpText('after', `
Examples:
  $ hogsync drift config/
  $ hogsync drift config/ --format junit --out drift.xml
  $ hogsync drift config/ --fail-on-unmanaged
  $ hogsync drift config/ --since 25h        # nightly; a full drift weekly stays the truth
With --since, changes the API does not log are not seen: run a full drift (without it) weekly.`)
    .action(verb('drift'));

  withCommon(program.command('export'))
    .description('write the live workspace as configuration YAML')
    .option('--organization <org>', "the organization to export: its UUID, its slug or @current, as in files (default @current, the key owner's current one)")
    .option('--project <id>', 'export only this project (repeatable)', collect)
    .option('--kind <key>', 'export only this kind, by its key in the files (repeatable, or comma-separated): projects, roles, feature_flags, insights, dashboards, event_definitions, …; without it every kind but event_definitions, insights and dashboards', collectList)
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--shared', 'declare flags that several projects hold once, at the top level, with per-project overrides')
    .option('--all-fields', 'also write fields that are web-app state (onboarding progress, primary dashboard, …)')
    .addHelpText('after', `
Examples:
  $ hogsync export --out hogsync.yaml          # the key owner's current organization
  $ hogsync export --organization acme-inc --out hogsync.yaml
  $ hogsync export --organization 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f --out hogsync.yaml
  $ hogsync export --organization 0190d1c4-… --project 12345 --project 12346
  $ hogsync export --organization 0190d1c4-… --all-fields --out everything.yaml
  $ hogsync export --organization 0190d1c4-… --kind feature_flags --kind event_definitions
  $ hogsync export --organization 0190d1c4-… --project 2001 --project 2002 --project 2003 --shared
Event definitions are not exported without --kind (every one would be read), nor insights
and dashboards (a dashboard's tiles take a GET that marks it viewed): pass --kind
event_definitions, --kind insights,dashboards (beside the other kinds you want) to export them.`)
    .action(verb('export'));

  withCommon(program.command('show').argument('<addresses...>', 'items as --target names them: KIND:ORG/KEY, * matching anything'))
    .description('print live items as the configuration YAML that would declare them (secrets as ${env:…} placeholders)')
    .addOption(defaulted('--format <format>', 'output format', 'yaml').choices(['yaml', 'json']))
    .option('--organization <org>', "the organization to read, for addresses whose organization part is *: its UUID, its slug or @current (default @current)")
    .addHelpText('after', `
Examples:
  $ hogsync show 'feature_flag:0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f/12345/new-checkout'
  $ hogsync show 'feature_flag:@current/12345/new-checkout'
  $ hogsync show 'role:acme-inc/Engineers'
  $ hogsync show 'role:*/Engineers' --organization 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f
  $ hogsync show 'project:*/12345' 'feature_flag:*/12345/*' --organization 0190d1c4-… > web-app.yaml
  $ hogsync show 'proxy_record:*/*' --organization 0190d1c4-… --format json
An address is KIND:ORG/KEY as --target takes it (a flag's KEY is PROJECT_ID/FLAG_KEY); ORG is the
organization's UUID, its slug or @current, as in files, or * for --organization (default
@current). Only what the addresses need is read. An address
that matches no live item is an error (exit 1).`)
    .action(verb('show'));

  withCommon(program.command('fmt').argument('[paths...]', 'files or directories (default hogsync.yaml)'), false)
    .description('rewrite configuration files in one canonical layout (keys in the schema\'s order, two-space indents; comments kept)')
    .option('--check', 'change nothing; exit 2 naming the files that are not in the canonical layout')
    .addHelpText('after', `
Examples:
  $ hogsync fmt config/                    # rewrites what differs, naming each file
  $ hogsync fmt --check config/            # CI: exit 2 when a file would change
Values, comments, blank lines, anchors and aliases, quoting and \${env:…} stay as written.
A file that does not parse is an error at file:line:col (exit 1), and nothing is written.`)
    .action(verb('fmt'));

  withCommon(program.command('sandbox'), false)
    .description('run a local, stateful emulator of the API')
    .addOption(defaulted('--port <n>', 'port (0 = any free port)', '8010'))
    .addOption(defaulted('--host <host>', 'loopback address to listen on', '127.0.0.1'))
    .option('--state <file>', 'keep state in this file (written atomically)')
    .option('--seed <file>', 'start from this workspace (YAML or JSON)')
    .addOption(defaulted('--latency <ms>', 'delay every answer', '0'))
    .addOption(defaulted('--fault-rate <p>', 'share of requests answered 5xx or dropped', '0'))
    .addOption(defaulted('--rate-limit <n>', 'requests per minute (per key) before answering 429', '0'))
    .addOption(defaulted('--rate-limit-hourly <n>', 'requests per hour (per key) before answering 429', '0'))
    .option('--insight-rate-limit <n>', 'requests per minute (per key) to the insight endpoints, on top of --rate-limit (default 240, the real API\'s, when a rate limit is on; else 0 = none)')
    .option('--insight-rate-limit-hourly <n>', 'requests per hour (per key) to the insight endpoints (default 1200, the real API\'s, when a rate limit is on; else 0 = none)')
    .addOption(defaulted('--deletion-delay <seconds>', 'how long proxy record and project deletions take (listed as deleting meanwhile)', '0'))
    .addHelpText('after', `
Examples:
  $ hogsync sandbox --port 0 --seed examples/sandbox-seed.yaml
  $ hogsync sandbox --port 8010 --state ws.json > sandbox.env & sleep 1; export $(cat sandbox.env)
It prints HOGSYNC_BASE_URL=… and HOGSYNC_API_KEY=… on stdout, so a shell can export them.`)
    .action(verb('sandbox'));

  program.command('schema')
    .description('print the JSON Schema of the configuration format')
    .addHelpText('after', `
Example:
  $ hogsync schema > hogsync.schema.json`)
    .action(verb('schema'));

  return program;
}

/** The verbs that talk to the API (and so take a base URL). */
const API_VERBS = ['plan', 'apply', 'drift', 'export', 'show'];

/**
 * A base URL with credentials is refused before anything else runs (option parsing included),
 * from the flag and, for a verb that would use it, from the environment; the message never
 * repeats what the credentials are.
 */
function refuseBaseUrlCredentials(argv: readonly string[], env: NodeJS.ProcessEnv): void {
  const args = argv.slice(2);
  let flagged = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') break;
    const value = arg === '--base-url' ? args[i + 1] : arg.startsWith('--base-url=') ? arg.slice('--base-url='.length) : undefined;
    if (value === undefined) continue;
    flagged = true;
    refuseCredentials(value, '--base-url');
  }
  if (!flagged && env.HOGSYNC_BASE_URL && args.some((a) => API_VERBS.includes(a))) refuseCredentials(env.HOGSYNC_BASE_URL, 'HOGSYNC_BASE_URL');
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  let verbose = argv.includes('--verbose');
  let origin: BaseUrlOrigin | undefined;
  try {
    refuseBaseUrlCredentials(argv, process.env);
  } catch (err) {
    reportError(err, false);
    return 1;
  }
  const program = buildProgram(async (verb, args, opts) => {
    verbose = opts.verbose === true;
    origin = baseUrlOrigin(opts);
    // Every byte the verbs print passes the secret mask (the sandbox prints its own key on purpose).
    if (verb !== 'sandbox') {
      maskStream(process.stdout);
      maskStream(process.stderr);
    }
    const load = VERBS[verb];
    if (!load) throw new Error(`no command ${verb}`);
    const mod = await load();
    exitCode = await mod.run(args, opts);
  }, argv);
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; every other parse error is a usage error (exit 1).
      return err.exitCode === 0 ? 0 : 1;
    }
    // The files' warnings are said beside their errors, not dropped with the run.
    if (err instanceof ConfigErrors) for (const w of err.warnings) process.stderr.write(`${printable(`${w.position.file}:${w.position.line}:${w.position.col}: warning: ${w.message}`)}\n`);
    reportError(err, verbose, adviceFor(err, origin));
    writeAnnotations(errorAnnotations(err));
    return 1;
  }
  return exitCode;
}
