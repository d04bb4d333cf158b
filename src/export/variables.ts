// Names of the environment variables that stand in for sensitive values in an exported file:
// HOGSYNC_<KIND>_<KEY>_<FIELD>, upper case, every other character run as one `_`
// (HOGSYNC_PROJECT_12345_SLACK_INCOMING_WEBHOOK). Names that would collide get _2, _3, ….

function part(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

export class VariableNamer {
  private readonly taken = new Set<string>();

  /** `key` is the item key of its address (a flag's includes its project: `12345/new-checkout`). */
  name(kind: string, key: string, field: string): string {
    const base = ['HOGSYNC', part(kind), part(key), part(field)].filter((p) => p !== '').join('_');
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }
}
