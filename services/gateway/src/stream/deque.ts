/** A growable circular buffer: push at the back, shift at the front, index and binary search in between. */
export class Deque<T> {
  private items: (T | undefined)[] = new Array(8);
  private start = 0;
  length = 0;

  push(item: T): void {
    if (this.length === this.items.length) this.grow();
    this.items[(this.start + this.length) & (this.items.length - 1)] = item;
    this.length++;
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.start];
    this.items[this.start] = undefined;
    this.start = (this.start + 1) & (this.items.length - 1);
    this.length--;
    return item;
  }

  at(index: number): T {
    return this.items[(this.start + index) & (this.items.length - 1)]!;
  }

  /** The index of the first item whose key is greater than `key` (items in ascending key order). */
  firstAfter(key: number, keyOf: (item: T) => number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (keyOf(this.at(middle)) <= key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private grow(): void {
    const items: (T | undefined)[] = new Array(this.items.length * 2);
    for (let i = 0; i < this.length; i++) items[i] = this.at(i);
    this.items = items;
    this.start = 0;
  }
}
