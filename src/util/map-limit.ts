// `items.map(fn)` with at most `limit` calls pending; results keep the order of `items`.
// The one bounded mapper of hogsync (no unbounded Promise.all over user-sized lists). After a
// call fails no new call starts, and the first error is the one reported: a failed read must
// not be followed by hundreds more requests. Callers that want every item tried (apply, the
// previews) catch inside `fn`.
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
