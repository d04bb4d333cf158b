// The ${env:NAME} grammar: replacement, the $${ escape, and every malformed form as an error.
import { describe, expect, it } from 'vitest';
import { expandString, interpolate, shellVariables } from '../src/config/interpolate.js';

const env = { A: 'alpha', B: '', WITH_DOLLAR: '${env:A}' };

describe('expandString', () => {
  it.each([
    ['plain', 'plain', []],
    ['${env:A}', 'alpha', ['A']],
    ['x-${env:A}-${env:A}-${env:B}!', 'x-alpha-alpha-!', ['A', 'A', 'B']],
    ['$${env:A}', '${env:A}', []],
    ['$$${env:A}', '$${env:A}', []],
    ['cost: $5, $$ and ${env:A}', 'cost: $5, $$ and alpha', ['A']],
    // A value is inserted as is: never interpolated again.
    ['${env:WITH_DOLLAR}', '${env:A}', ['WITH_DOLLAR']],
  ])('%s → %s', (input, value, names) => {
    expect(expandString(input, env)).toEqual({ value, names, errors: [] });
  });

  it.each([
    ['${env:MISSING}', 'environment variable MISSING is not set'],
    ['${env:}', 'empty variable name in "${env:}"'],
    ['${env:1X}', 'invalid variable name in "${env:1X}": use letters, digits and _, not starting with a digit'],
    ['${env:A-B}', 'invalid variable name in "${env:A-B}": use letters, digits and _, not starting with a digit'],
    ['${ENV:A}', 'unsupported interpolation "${ENV:A}": only ${env:NAME} is supported (write "$${" for a literal "${")'],
    ['${A-B}', 'unsupported interpolation "${A-B}": only ${env:NAME} is supported (write "$${" for a literal "${")'],
    ['${env.A}', 'unsupported interpolation "${env.A}": only ${env:NAME} is supported (write "$${" for a literal "${")'],
    ['${env:A', 'unterminated "${" (write "$${" for a literal "${")'],
  ])('%s is an error', (input, message) => {
    expect(expandString(input, env).errors).toEqual([message]);
  });
});

describe('strings written the shell\'s way', () => {
  it('keeps ${NAME} as written (a warning names it), next to ${env:…} that is replaced', () => {
    expect(expandString('${SLACK_WEBHOOK} and ${env:A}', env)).toEqual({ value: '${SLACK_WEBHOOK} and alpha', names: ['A'], errors: [], shellStyle: ['SLACK_WEBHOOK'] });
    expect(expandString('$${SLACK_WEBHOOK}', env)).toEqual({ value: '${SLACK_WEBHOOK}', names: [], errors: [] });
  });

  it.each([
    ['$SLACK_WEBHOOK', ['SLACK_WEBHOOK']],
    ['hook: $HOOK_2, then $TOKEN.', ['HOOK_2', 'TOKEN']],
    // The API's own names are lower-case, mixed case is not a shell variable, $$ and $5 are not either.
    ['$pageview $browser $Browser $SLACK_webhook $$HOME cost $5 ${env:A}', []],
  ])('%s names %j', (input, names) => {
    expect(shellVariables(input)).toEqual(names);
  });

  it('warns per variable, at the string, and sends the text as written', () => {
    const r = interpolate({ a: '$SLACK_WEBHOOK', b: ['${SLACK_WEBHOOK}'], c: '$pageview' }, env);
    expect(r.data).toEqual({ a: '$SLACK_WEBHOOK', b: ['${SLACK_WEBHOOK}'], c: '$pageview' });
    expect(r.problems).toEqual([]);
    expect(r.warnings.map((w) => w.pointer)).toEqual(['/a', '/b/0']);
    expect(r.warnings[0]?.message).toBe("SLACK_WEBHOOK is written the shell's way ($NAME): hogsync sends the text as written; to read the environment variable, write ${env:SLACK_WEBHOOK}");
  });
});

describe('interpolate', () => {
  it('walks lists and mappings, leaves keys and non-strings alone, and records pointers', () => {
    const r = interpolate({ '${env:A}': 1, list: ['${env:A}', 2, true, null], deep: { 'a/b': '${env:B}' } }, env);
    expect(r.data).toEqual({ '${env:A}': 1, list: ['alpha', 2, true, null], deep: { 'a/b': '' } });
    expect([...r.sources]).toEqual([['/list/0', ['A']], ['/deep/a~1b', ['B']]]);
    expect(r.problems).toEqual([]);
  });
});
