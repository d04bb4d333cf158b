// Workflow annotations (src/cli/annotations.ts): escaped as GitHub's toolkit escapes them, so a
// message with a line break or a file name with a comma cannot end the command early or forge one.
import { describe, expect, it } from 'vitest';
import { annotation, positionedLine } from '../src/cli/annotations.js';

describe('workflow annotations', () => {
  it('escape %, CR and LF in the message, and also : and , in properties', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: '/repo' };
    expect(annotation('error', { file: '/repo/a,b:c%.yaml', line: 3, col: 7 }, '50% done\r\n::error::forged', env))
      .toBe('::error file=a%2Cb%3Ac%25.yaml,line=3,col=7::50%25 done%0D%0A::error::forged');
    // A file outside the checkout keeps its path.
    expect(annotation('notice', { file: '/elsewhere/x.yaml', line: 1, col: 1 }, 'create', env)).toBe('::notice file=/elsewhere/x.yaml,line=1,col=1::create');
  });

  it('find the position of a plan warning only where it is one of the files', () => {
    expect(positionedLine('config/a.yaml:4:5: warning text: more', ['config/a.yaml'])).toEqual({ position: { file: 'config/a.yaml', line: 4, col: 5 }, message: 'warning text: more' });
    expect(positionedLine('feature_flag:org/1/x: 12:30: not a position', ['config/a.yaml'])).toBeUndefined();
  });
});
