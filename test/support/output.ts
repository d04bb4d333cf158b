// What a test's child processes print stays out of a passing run's log: the test keeps it here,
// and it is printed, under the test's name, only if that test fails.
import type { TestContext } from 'vitest';

export interface KeptOutput {
  write(text: string): void;
  text(): string;
}

/** Output kept for `context`'s test (call in the test or its beforeEach), printed if it fails. */
export function keptOutput(context: Pick<TestContext, 'onTestFailed' | 'task'>): KeptOutput {
  let kept = '';
  context.onTestFailed(() => {
    if (kept !== '') process.stderr.write(`\n--- printed by the processes of "${context.task.name}" ---\n${kept}${kept.endsWith('\n') ? '' : '\n'}---\n`);
  });
  return { write: (text) => { kept += text; }, text: () => kept };
}
