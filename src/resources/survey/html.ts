// The HTML sanitising the real API applies to a survey's texts on every write, modelled from its
// source (posthog/api/survey.py, `nh3_clean_with_allow_list`: nh3, the Python binding of the Rust
// crate ammonia). A text that `nh3.is_html` finds markup in is replaced by `nh3.clean(text, tags=…,
// attributes=…, link_rel="noopener")`: tags outside the allow-list are dropped with their content
// kept (script and style with their content too), attributes outside the list are dropped, URLs
// with a scheme ammonia refuses (javascript:, data:) lose their attribute, comments go, links get
// rel="noopener", and the markup is written out again in one spelling (lower-case names,
// double-quoted values, `<br>` for `<br/>`). hogsync compares both sides after this same
// rewriting (so a tag the API strips is never drift), validate warns where a file's text would be
// rewritten, and the sandbox stores what this returns. A model of ammonia's rules, not a full HTML
// parser: tags are found by a regular expression, which is what survey texts hold.

const TAGS = new Set([
  'a', 'abbr', 'acronym', 'area', 'article', 'aside', 'b', 'bdi', 'bdo', 'blockquote', 'br', 'caption', 'center', 'cite', 'code',
  'col', 'colgroup', 'data', 'dd', 'del', 'details', 'dfn', 'div', 'dl', 'dt', 'em', 'figcaption', 'figure', 'footer', 'h1', 'h2',
  'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'map', 'mark', 'nav', 'ol', 'p', 'pre', 'q', 'rp',
  'rt', 'rtc', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'th',
  'thead', 'time', 'tr', 'tt', 'u', 'ul', 'var', 'wbr',
]);

const EVERY_TAG = ['style', 'lang', 'title', 'width', 'height'];
const TABLE_CELL = ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'];
const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'hreflang', 'target'],
  bdo: ['dir'],
  blockquote: ['cite'],
  col: ['align', 'char', 'charoff', 'span'],
  colgroup: ['align', 'char', 'charoff', 'span'],
  del: ['cite', 'datetime'],
  hr: ['align', 'size', 'width'],
  img: ['align', 'alt', 'height', 'src', 'width'],
  ins: ['cite', 'datetime'],
  ol: ['start', 'type'],
  q: ['cite'],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'rules', 'summary', 'width'],
  tbody: ['align', 'char', 'charoff', 'valign'],
  td: TABLE_CELL,
  tfoot: ['align', 'char', 'charoff', 'valign'],
  th: TABLE_CELL,
  thead: ['align', 'char', 'charoff', 'valign'],
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
};
/** Tags ammonia drops with everything inside them (its clean_content_tags). */
const CONTENT_DROPPED = new Set(['script', 'style']);
/** Attributes holding URLs, whose scheme ammonia checks. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);
/** ammonia's default URL schemes (a relative URL has none and is kept). */
const URL_SCHEMES = new Set([
  'bitcoin', 'ftp', 'ftps', 'geo', 'http', 'https', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'mms', 'mx', 'news', 'nntp',
  'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'url', 'webcal', 'wtai', 'xmpp',
]);
const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'wbr']);

const TAG_RE = /<!--[\s\S]*?-->|<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
const ATTR_RE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/** Whether nh3 finds markup in the text (a tag or a comment): only such texts are cleaned. */
export function isHtml(text: string): boolean {
  TAG_RE.lastIndex = 0;
  return TAG_RE.test(text);
}

const escapeText = (s: string) => s.replace(/&(?![a-zA-Z][a-zA-Z0-9]*;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => s.replace(/&(?![a-zA-Z][a-zA-Z0-9]*;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;').replace(/"/g, '&quot;');

function urlAllowed(value: string): boolean {
  const scheme = /^\s*([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(value);
  return !scheme || URL_SCHEMES.has((scheme[1] as string).toLowerCase());
}

function openTag(name: string, rawAttributes: string): string {
  const allowed = new Set([...EVERY_TAG, ...(ATTRIBUTES[name] ?? [])]);
  const kept: string[] = [];
  ATTR_RE.lastIndex = 0;
  for (let m = ATTR_RE.exec(rawAttributes); m; m = ATTR_RE.exec(rawAttributes)) {
    const attr = (m[1] as string).toLowerCase();
    if (!allowed.has(attr) || attr === 'rel') continue;
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    if (URL_ATTRIBUTES.has(attr) && !urlAllowed(value)) continue;
    kept.push(`${attr}="${escapeAttr(value)}"`);
  }
  if (name === 'a') kept.push('rel="noopener"');
  return `<${name}${kept.length > 0 ? ` ${kept.join(' ')}` : ''}>`;
}

/** The text as the API stores it: cleaned where it holds markup, else as written. */
export function sanitizeHtml(text: string): string {
  if (!isHtml(text)) return text;
  let out = '';
  let last = 0;
  let dropping: string | null = null;
  TAG_RE.lastIndex = 0;
  for (let m = TAG_RE.exec(text); m; m = TAG_RE.exec(text)) {
    if (dropping === null) out += escapeText(text.slice(last, m.index));
    last = TAG_RE.lastIndex;
    const raw = m[0];
    const name = m[1]?.toLowerCase();
    if (name === undefined) continue; // a comment
    const closing = raw.startsWith('</');
    if (dropping !== null) {
      if (closing && name === dropping) dropping = null;
      continue;
    }
    if (CONTENT_DROPPED.has(name)) {
      if (!closing && !raw.endsWith('/>')) dropping = name;
      continue;
    }
    if (!TAGS.has(name)) continue;
    if (closing) out += VOID.has(name) ? '' : `</${name}>`;
    else out += openTag(name, m[2] ?? '');
  }
  if (dropping === null) out += escapeText(text.slice(last));
  return out;
}

/** Where a survey's texts are sanitised: in each question, and in its appearance's thank-you texts. */
export const QUESTION_TEXTS = ['question', 'description', 'buttonText'] as const;
export const APPEARANCE_TEXTS = ['thankYouMessageHeader', 'thankYouMessageDescription'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A question as the API stores it: its texts and choices sanitised. */
export function sanitizeQuestion(question: unknown): unknown {
  if (!isObj(question)) return question;
  const out: Obj = { ...question };
  for (const key of QUESTION_TEXTS) if (typeof out[key] === 'string') out[key] = sanitizeHtml(out[key] as string);
  if (Array.isArray(out.choices)) out.choices = out.choices.map((c) => (typeof c === 'string' ? sanitizeHtml(c) : c));
  return out;
}

/** An appearance as the API stores it: its thank-you texts sanitised. */
export function sanitizeAppearance(appearance: unknown): unknown {
  if (!isObj(appearance)) return appearance;
  const out: Obj = { ...appearance };
  for (const key of APPEARANCE_TEXTS) if (typeof out[key] === 'string') out[key] = sanitizeHtml(out[key] as string);
  return out;
}
