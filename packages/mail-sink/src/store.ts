// In-memory message list, newest last; optionally mirrored to a JSON file so `npm stop`/`npm start` keeps mail.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Message } from './message';

export class MessageStore {
  private messages: Message[] = [];

  constructor(
    private readonly file?: string,
    private readonly max = 1000, // like Mailpit's retention limit, so a long-running sink stays small
  ) {
    if (file && existsSync(file)) this.messages = JSON.parse(readFileSync(file, 'utf8')) as Message[];
  }

  add(msg: Message): void {
    this.messages.push(msg);
    if (this.messages.length > this.max) this.messages.splice(0, this.messages.length - this.max);
    this.save();
  }

  /** Newest first, as Mailpit lists. */
  list(filter: (m: Message) => boolean = () => true): Message[] {
    return this.messages.filter(filter).reverse();
  }

  get(id: string): Message | undefined {
    return this.messages.find((m) => m.ID === id);
  }

  /** Deletes the messages the predicate selects; returns how many. */
  delete(which: (m: Message) => boolean): number {
    const before = this.messages.length;
    this.messages = this.messages.filter((m) => !which(m));
    this.save();
    return before - this.messages.length;
  }

  private save(): void {
    if (!this.file) return;
    writeFileSync(`${this.file}.tmp`, JSON.stringify(this.messages));
    renameSync(`${this.file}.tmp`, this.file); // atomic: a crash never leaves half a file
  }
}
