// JSON answers parsed from their bytes. V8 keeps a string of 128 KiB or more in its
// large-object space: one memory mapping each, mapped, touched and unmapped again (ten times the
// cost of a smaller one, most of it in the kernel). A list of 100 flags is about 130 KiB, and a
// plan reads hundreds. So a large answer is never decoded whole, nor copied into a buffer of its
// own: its chunks are gathered in one buffer kept for the purpose, its top-level object read
// member by member, and a large array member (a list's `results`) in pieces of a few elements,
// each decoded and parsed on its own. The pieces are found by one pass over the bytes; anything
// the pass does not expect, or a piece JSON.parse refuses, sends the whole answer to JSON.parse
// as before, so a result or an error is always exactly JSON.parse's.

/** Answers at least this large are read in pieces (well below the 128 KiB of a large object, even for a two-byte string). */
const LARGE = 48 * 1024;
/** A piece of an array ends at the first element boundary past this size. */
const PIECE = 16 * 1024;
/** A guessed piece is at most this large (else it is scanned for): three pieces, as LARGE. */
const GUESSED = 3 * PIECE;
/** The gathering buffer is kept up to this size; a larger answer gets one of its own. */
const KEPT = 4 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

class Unexpected extends Error {}

let gathering = Buffer.allocUnsafe(0);

/** The chunks as one buffer: the first chunk itself, or the kept buffer (valid until the next call). */
function gather(chunks: readonly Buffer[], size: number): Buffer {
  if (chunks.length === 1) return chunks[0] as Buffer;
  if (size > KEPT) return Buffer.concat(chunks, size);
  if (gathering.length < size) gathering = Buffer.allocUnsafe(Math.max(size, Math.min(KEPT, gathering.length * 2)));
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(gathering, at);
  return gathering.subarray(0, size);
}

/**
 * The parsed value of a JSON text given as UTF-8 bytes (a body's chunks, `size` bytes in all):
 * what `JSON.parse` of the decoded text answers or throws.
 */
export function parseJsonBytes(chunks: readonly Buffer[], size: number): unknown {
  const bytes = gather(chunks, size);
  if (bytes.length >= LARGE) {
    try {
      return inPieces(bytes);
    } catch {
      // Not a shape read in pieces, or not valid JSON: JSON.parse decides, as for any answer.
    }
  }
  return JSON.parse(bytes.toString('utf8')) as unknown;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** The index after the string that opens at `i` (a quote). */
function stringEnd(b: Buffer, i: number): number {
  const n = b.length;
  for (i++; i < n; i++) {
    const c = b[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  throw new Unexpected();
}

/** The index after the value that starts at `i`; strings and brackets are matched, scalars end at a delimiter. */
function valueEnd(b: Buffer, i: number): number {
  const n = b.length;
  const first = b[i];
  if (first === QUOTE) return stringEnd(b, i);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (; i < n; i++) {
      const c = b[i];
      if (c === QUOTE) i = stringEnd(b, i) - 1;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    throw new Unexpected();
  }
  let j = i;
  while (j < n) {
    const c = b[j];
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
    j++;
  }
  if (j === i) throw new Unexpected();
  return j;
}

function parseSlice(b: Buffer, start: number, end: number): unknown {
  return JSON.parse(b.toString('utf8', start, end)) as unknown;
}

/** A top-level array in pieces; a top-level object member by member, its large array members in pieces. */
function inPieces(b: Buffer): unknown {
  let i = skipSpace(b, 0);
  if (b[i] === OPEN_ARRAY) {
    const [array, end] = arrayInPieces(b, i);
    if (skipSpace(b, end) !== b.length) throw new Unexpected();
    return array;
  }
  if (b[i] !== OPEN_OBJECT) throw new Unexpected();
  const out: Record<string, unknown> = {};
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_OBJECT) i++;
  else {
    for (;;) {
      if (b[i] !== QUOTE) throw new Unexpected();
      const keyEnd = stringEnd(b, i);
      const key = parseSlice(b, i, keyEnd) as string;
      i = skipSpace(b, keyEnd);
      if (b[i] !== COLON) throw new Unexpected();
      i = skipSpace(b, i + 1);
      let value: unknown;
      if (b[i] === OPEN_ARRAY) [value, i] = arrayInPieces(b, i);
      else {
        const end = valueEnd(b, i);
        value = parseSlice(b, i, end);
        i = end;
      }
      // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      i = skipSpace(b, i);
      if (b[i] === COMMA) {
        i = skipSpace(b, i + 1);
        continue;
      }
      if (b[i] !== CLOSE_OBJECT) throw new Unexpected();
      i++;
      break;
    }
  }
  if (skipSpace(b, i) !== b.length) throw new Unexpected();
  return out;
}

/** Where a piece is decoded (its bytes, bracketed): one buffer, kept for the purpose. */
let assembly = Buffer.allocUnsafe(4 * PIECE);

/** The text `[` + b[start, end) + `]`, decoded once (not a slice joined to brackets, which V8 copies again to parse). */
function bracketed(b: Buffer, start: number, end: number): string {
  const need = end - start + 2;
  if (assembly.length < need) assembly = Buffer.allocUnsafe(need * 2);
  assembly[0] = OPEN_ARRAY;
  const at = 1 + b.copy(assembly, 1, start, end);
  assembly[at] = CLOSE_ARRAY;
  return assembly.toString('utf8', 0, at + 1);
}

/**
 * The array that opens at `i`, parsed a few elements at a time; answers it and the index after it.
 *
 * Where a piece ends is guessed rather than scanned for, byte by byte, in JavaScript: the records
 * of a list are objects written alike, so the bytes between the first two (`},{"id"`) are looked
 * for natively between one and three pieces' size on; without one there, the last piece ends at
 * the last `]` there. A guess counts only if JSON.parse reads the piece: from an element's start,
 * bytes that parse as elements separated by commas end where those elements truly end (parsing
 * from there is the same whatever follows). A guess inside an element (a record's own list of
 * objects) does not parse; that piece is then scanned, as every piece once was, and after two
 * such misses the rest too.
 */
function arrayInPieces(b: Buffer, i: number): [unknown[], number] {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_ARRAY) return [[], i + 1];
  // Joined once at the end: pushed element by element, 20 000 flags were a loop hot enough for V8
  // to compile this function (and all it inlines) at every plan.
  const pieces: unknown[][] = [];
  let pieceStart = i;
  let separator: Separator | undefined;
  let misses = 0;
  /** The piece a guess was last tried for: one guess a piece, so a list that stops matching costs no more than it did. */
  let guessedAt = -1;
  for (;;) {
    if (separator && misses < 2 && guessedAt !== pieceStart) {
      guessedAt = pieceStart;
      // Looked for within the largest piece a guess may make, never further.
      const window = b.subarray(0, Math.min(b.length, pieceStart + GUESSED));
      const found = window.indexOf(separator.bytes, pieceStart + PIECE);
      const end = found >= 0 ? found + separator.comma : window.lastIndexOf(CLOSE_ARRAY);
      if (end > pieceStart) {
        const piece = parsedPiece(b, pieceStart, end);
        if (piece) {
          pieces.push(piece);
          if (found < 0) return [joined(pieces), end + 1];
          i = pieceStart = skipSpace(b, end + 1);
          continue;
        }
        // A last `]` that is not the list's (a member with a list follows it): no later guess would be better.
        misses = found < 0 ? 2 : misses + 1;
      }
    }
    const elementEnd = valueEnd(b, i);
    i = skipSpace(b, elementEnd);
    const c = b[i];
    if (c !== COMMA && c !== CLOSE_ARRAY) throw new Unexpected();
    if (!separator && c === COMMA && b[elementEnd - 1] === CLOSE_OBJECT) separator = separatorAfter(b, elementEnd - 1, i);
    if (c === CLOSE_ARRAY || i - pieceStart >= PIECE) {
      // The elements between pieceStart and i, separated by commas: an array once bracketed.
      pieces.push(JSON.parse(bracketed(b, pieceStart, i)) as unknown[]);
      if (c === CLOSE_ARRAY) return [joined(pieces), i + 1];
      pieceStart = skipSpace(b, i + 1);
    }
    i = skipSpace(b, i + 1);
  }
}

/** The pieces' elements as one array (an element that is an array stays one). */
function joined(pieces: unknown[][]): unknown[] {
  return pieces.length === 1 ? pieces[0] as unknown[] : pieces.flat(1);
}

/** The bytes between two object elements, up to the second's first key included (`},{"id"`), and where the comma is in them. */
interface Separator { bytes: Buffer; comma: number }

/** The separator after the object element whose `}` is at `close`, its comma at `comma`; none unless an object with a key follows. */
function separatorAfter(b: Buffer, close: number, comma: number): Separator | undefined {
  let i = skipSpace(b, comma + 1);
  if (b[i] !== OPEN_OBJECT) return undefined;
  i = skipSpace(b, i + 1);
  if (b[i] !== QUOTE) return undefined;
  return { bytes: b.subarray(close, stringEnd(b, i)), comma: comma - close };
}

/** The elements in b[start, end) if JSON.parse reads them as elements separated by commas. */
function parsedPiece(b: Buffer, start: number, end: number): unknown[] | undefined {
  try {
    return JSON.parse(bracketed(b, start, end)) as unknown[];
  } catch {
    return undefined;
  }
}
