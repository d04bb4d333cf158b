// Tags as the real API keeps them on every tagged kind (TaggedItemSerializerMixin: flags, event
// definitions, actions): trimmed, lower-cased, without duplicates, in its own order. They compare
// as a set, case-insensitively; without the organization's tagging feature the API stores none.

/** Tags as a set, case-insensitively: trimmed, lower-cased, sorted, without duplicates. */
export function normalizeTags(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? null;
  return [...new Set(value.map((t) => (typeof t === 'string' ? t.trim().toLowerCase() : JSON.stringify(t))).filter((t) => t !== ''))].sort();
}
