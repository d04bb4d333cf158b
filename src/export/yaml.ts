// Renders an exported document as YAML that diffs well in git: block style, no line folding,
// no anchors or aliases, keys in fmt's canonical order (the schema's; others as given), comments attached to the items they are
// about, and strings a YAML 1.1 reader would take for booleans (yes, off, …) quoted.
import type { Node, Scalar } from 'yaml';
import { loadYaml } from '../config/compiled.js';
import { orderBySchema } from '../config/format.js';

export interface LocatedItem<T> { path: (string | number)[]; item: T }

export interface RenderOptions<T> {
  /** Comment lines at the top of the file (without `#`); the first is the editor modeline. */
  header: readonly string[];
  /** Comment lines above an item. */
  notesOf(item: T): readonly string[];
  /** Where placeholders sit in an item (a field, or a path inside one) and their variables, for a comment after each. */
  secretsOf(item: T): ReadonlyArray<{ at: readonly string[]; name: string }>;
}

const YAML11_BOOLEAN = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;

const comment = (lines: readonly string[]) => lines.map((l) => ` ${l}`).join('\n');

export function renderYaml<T>(data: Record<string, unknown>, items: readonly LocatedItem<T>[], options: RenderOptions<T>): string {
  const { Document, isScalar, visit } = loadYaml();
  const doc = new Document(data, { aliasDuplicateObjects: false });
  // fmt's own ordering, so an exported file passes `fmt --check` as written.
  orderBySchema(doc.contents as Node | null);
  doc.commentBefore = comment(options.header);
  for (const { path, item } of items) {
    const notes = options.notesOf(item);
    const node = doc.getIn(path, true) as Node | undefined;
    if (node && notes.length > 0) node.commentBefore = comment(notes);
    for (const { at, name } of options.secretsOf(item)) {
      const value = doc.getIn([...path, ...at], true);
      if (isScalar(value)) value.comment = ` sensitive: set ${name} before plan (the live value is not exported)`;
    }
  }
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && YAML11_BOOLEAN.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0, minContentWidth: 0 });
}
