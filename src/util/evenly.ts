// Two lists merged so that each is spread evenly through the whole: a list twice as long as
// the other gives two of its items for each of the other's, and each keeps its own order.

/** The items of `a` and `b`, each list's in its order, spread evenly among each other (`a` first on a tie). */
export function evenly<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    // The list further behind its share of what is out so far goes next.
    if (j >= b.length || (i < a.length && i * b.length <= j * a.length)) out.push(a[i++] as T);
    else out.push(b[j++] as T);
  }
  return out;
}
