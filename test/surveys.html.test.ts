// The model of the API's HTML sanitising of survey texts (src/resources/survey/html.ts, from
// posthog/api/survey.py `nh3_clean_with_allow_list`): what it keeps, drops and rewrites, and that
// it is stable (a sanitised text sanitises to itself, so what the API stored never drifts).
import { describe, expect, it } from 'vitest';
import { isHtml, sanitizeHtml } from '../src/resources/survey/html.js';

describe('survey HTML sanitising', () => {
  it('leaves plain text alone (nh3.is_html finds no markup), even with & and <', () => {
    for (const text of ['Fish & chips', 'a < b', 'How likely are you to recommend us?']) {
      expect(isHtml(text)).toBe(false);
      expect(sanitizeHtml(text)).toBe(text);
    }
  });

  it('keeps allowed tags and attributes, drops the rest (script and style with their content) and comments', () => {
    expect(sanitizeHtml('<p class="x" style="color: red">Hi <span onclick="x()">there</span></p>')).toBe('<p style="color: red">Hi <span>there</span></p>');
    expect(sanitizeHtml('<b>Bold</b><script>alert(1)</script><style>p{}</style><!-- note -->!')).toBe('<b>Bold</b>!');
    expect(sanitizeHtml('<iframe src="https://x">inside</iframe><blink>Go</blink>')).toBe('insideGo');
    expect(sanitizeHtml("<img src='https://example.com/a.png' alt=Logo onerror=\"x\"/>")).toBe('<img src="https://example.com/a.png" alt="Logo">');
  });

  it('adds rel="noopener" to links and drops URLs of schemes ammonia refuses', () => {
    expect(sanitizeHtml('<a href="https://example.com" target="_blank" rel="opener">docs</a>')).toBe('<a href="https://example.com" target="_blank" rel="noopener">docs</a>');
    expect(sanitizeHtml('<a href="javascript:alert(1)">x</a>')).toBe('<a rel="noopener">x</a>');
    expect(sanitizeHtml('<A HREF="/relative">x</A><br/>')).toBe('<a href="/relative" rel="noopener">x</a><br>');
  });

  it('is stable: what it returns sanitises to itself', () => {
    for (const text of ['<b onclick="x()">Bold</b> & <em>more</em>', '<a href="mailto:a@b.co">mail</a>', '<p>1 &lt; 2 &amp; <i>x</i></p>']) {
      const once = sanitizeHtml(text);
      expect(sanitizeHtml(once)).toBe(once);
    }
  });
});
