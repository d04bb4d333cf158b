// What `hogsync fmt --check` says of a file the CLI wrote (an export, a show): it must already be
// in fmt's canonical layout, so an adopted export passes `fmt --check` on day one. Run in
// process (formatConfigText is what fmt runs on each file), so it costs no CLI spawn.
import { expect } from 'vitest';
import { formatConfigText } from '../../src/config/format.js';

export function expectCanonical(text: string, file = 'exported.yaml'): void {
  const formatted = formatConfigText(file, text);
  expect(formatted.problems, `${file}: fmt cannot read it`).toEqual([]);
  expect(formatted.text, `${file}: not in fmt's canonical layout`).toBe(text);
}
