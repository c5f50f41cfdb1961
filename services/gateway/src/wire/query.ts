/**
 * Query arguments with case-insensitive names (`apiKey`, `pagesize`), form-decoded (`+` is a space)
 * (docs/compat.md §1.1). Repeated arguments keep every value, in order.
 */
export class Query {
  private readonly values = new Map<string, string[]>();
  /** The arguments as sent (names in their own spelling), for messages that name one. */
  private readonly sent: Array<[string, string]>;

  constructor(search: string) {
    this.sent = [...new URLSearchParams(search)];
    for (const [name, value] of this.sent) {
      const key = name.toLowerCase();
      const list = this.values.get(key);
      if (list) list.push(value);
      else this.values.set(key, [value]);
    }
  }

  /** The first value of an argument, or undefined. */
  get(name: string): string | undefined {
    return this.values.get(name.toLowerCase())?.[0];
  }

  getAll(name: string): string[] {
    return this.values.get(name.toLowerCase()) ?? [];
  }

  /** Every argument as [name as sent, value], in order, repeats included. */
  entries(): ReadonlyArray<[string, string]> {
    return this.sent;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  /**
   * The arguments as one string that is the same for every spelling of the same query (name case, argument
   * order), without those named in `omit`; values of a repeated name keep their order.
   */
  canonical(...omit: string[]): string {
    const left = new Set(omit.map((name) => name.toLowerCase()));
    const names = [...this.values.keys()].filter((name) => !left.has(name)).sort();
    return new URLSearchParams(
      names.flatMap((name) => (this.values.get(name) ?? []).map((value): [string, string] => [name, value])),
    ).toString();
  }
}
