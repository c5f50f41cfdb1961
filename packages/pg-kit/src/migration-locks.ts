import type pg from 'pg';
import { quoteIdent } from './pool';

/**
 * Migrations run while the previous release serves (a rolling upgrade: the new pods' `migrate` init container runs
 * beside the old pods). A migration's transaction that holds one table's lock while it waits for another's can
 * close a cycle with a request's transaction that holds the second and waits for the first, and PostgreSQL then
 * ends one of them: the request's, as often as not, answered 500. It happened: migration 0011 of boards altered
 * story_milestones then story_steps while the previous release's move, a prepared statement whose cached plan locks
 * story_steps first, ran beside it.
 *
 * So a migration that takes a lock stronger than a request's (anything above ROW EXCLUSIVE, or rows of an UPDATE
 * or DELETE) on more than one table that exists before it, or on one table first weakly and then more strongly,
 * declares those locks at its top:
 *
 *   -- flowboard:lock-first SHARE ROW EXCLUSIVE: stories, tasks
 *
 * and the runner takes them all before the file's first statement, at once: each attempt asks with NOWAIT, and one
 * that finds a table busy gives back whatever it took (its savepoint rolled back) and tries again shortly. The
 * migration never waits while holding, so it is never part of a cycle; requests wait behind it for its duration,
 * as before. The contract gate (scripts/contract-check.sh, `migrations`) checks each unreleased migration against
 * this rule with `lockNeeds`.
 */

/** PostgreSQL's table lock modes, weakest first (each conflicts with at least what the one before it does). */
export const LOCK_MODES = [
  'ACCESS SHARE',
  'ROW SHARE',
  'ROW EXCLUSIVE',
  'SHARE UPDATE EXCLUSIVE',
  'SHARE',
  'SHARE ROW EXCLUSIVE',
  'EXCLUSIVE',
  'ACCESS EXCLUSIVE',
] as const;
export type LockMode = (typeof LOCK_MODES)[number];

/** Whether holding `held` makes a later request for `needed` on the same table wait for nobody new. */
export const covers = (held: LockMode, needed: LockMode): boolean =>
  LOCK_MODES.indexOf(held) >= LOCK_MODES.indexOf(needed) &&
  // SHARE does not conflict with itself, SHARE UPDATE EXCLUSIVE does: neither covers the other.
  !(held === 'SHARE' && needed === 'SHARE UPDATE EXCLUSIVE');

export interface LockFirst {
  mode: LockMode;
  tables: string[];
}

const DIRECTIVE = /^--\s*flowboard:lock-first\b(.*)$/gim;

/** The file's `flowboard:lock-first` lines; a malformed one throws, naming it. */
export function lockFirstDirectives(sql: string): LockFirst[] {
  const found: LockFirst[] = [];
  for (const [line, rest] of sql.matchAll(DIRECTIVE)) {
    const parsed = /^\s+([A-Za-z ]+?)\s*:\s*(.+?)\s*$/.exec(rest ?? '');
    const mode = parsed?.[1]?.toUpperCase().replace(/\s+/g, ' ') as LockMode | undefined;
    const tables = parsed?.[2]?.split(',').map((t) => t.trim().toLowerCase()) ?? [];
    if (
      !mode ||
      !LOCK_MODES.includes(mode) ||
      tables.length === 0 ||
      tables.some((t) => !/^[a-z_][a-z0-9_]*$/.test(t))
    )
      throw new Error(
        `malformed "${line.trim()}": expected "-- flowboard:lock-first <lock mode>: <table>[, <table>...]"`,
      );
    found.push({ mode, tables });
  }
  return found;
}

export interface LockFirstOptions {
  /** Give up (the migration fails, and its Job or init container runs it again) after this long. Default 30 s. */
  timeoutMs?: number;
  /** Pause between attempts, jittered ±50 %. Default 20 ms. */
  retryMs?: number;
}

/**
 * Takes every declared lock in one go inside the caller's transaction (see the file's comment); resolves to the
 * number of attempts it took.
 */
export async function takeLocksFirst(
  client: pg.ClientBase,
  directives: readonly LockFirst[],
  options: LockFirstOptions = {},
): Promise<number> {
  if (directives.length === 0) return 0;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const retryMs = options.retryMs ?? 20;
  for (let attempt = 1; ; attempt++) {
    await client.query('SAVEPOINT flowboard_lock_first');
    try {
      for (const { mode, tables } of directives)
        await client.query(`LOCK TABLE ${tables.map(quoteIdent).join(', ')} IN ${mode} MODE NOWAIT`);
      await client.query('RELEASE SAVEPOINT flowboard_lock_first');
      return attempt;
    } catch (err) {
      if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
      // Gives back the locks this attempt took: a migration waiting holds nothing a request might want.
      await client.query('ROLLBACK TO SAVEPOINT flowboard_lock_first');
      await client.query('RELEASE SAVEPOINT flowboard_lock_first');
      if (Date.now() >= deadline)
        throw new Error(
          `could not take ${describe(directives)} at once within ${options.timeoutMs ?? 30_000} ms (${attempt} attempts)`,
          { cause: err },
        );
      await new Promise((resolve) => setTimeout(resolve, retryMs * (0.5 + Math.random())));
    }
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

const describe = (directives: readonly LockFirst[]): string =>
  directives.map((d) => `${d.mode} on ${d.tables.join(', ')}`).join('; ');

/** One table's locks in a migration, in statement order. */
export interface TableLocks {
  table: string;
  /** The modes its statements need, in order. */
  modes: LockMode[];
  /**
   * Whether it UPDATEs or DELETEs existing rows: it then locks them one by one, in its own order, while requests
   * may hold some; only a SHARE lock taken first (no request writes meanwhile) rules out a cycle between rows.
   */
  rows: boolean;
}

/**
 * What a migration's statements lock, as far as a reading of its SQL tells: the tables it did not create itself,
 * with the modes that conflict with a request's writes (DDL, foreign keys, and the rows of UPDATE and DELETE, which
 * SHARE is needed to hold off). Function bodies are not statements; a DO block cannot be read, and is reported.
 */
export function lockNeeds(sql: string): { tables: TableLocks[]; unreadable: string[] } {
  const statements = splitStatements(sql);
  const created = new Set<string>();
  const byTable = new Map<string, TableLocks>();
  const unreadable: string[] = [];
  const need = (table: string | undefined, mode: LockMode, rows = false) => {
    const name = table?.toLowerCase().replace(/"/g, '');
    if (!name || created.has(name)) return;
    const locks = byTable.get(name) ?? { table: name, modes: [], rows: false };
    locks.modes.push(mode);
    locks.rows ||= rows;
    byTable.set(name, locks);
  };
  const ident = String.raw`("?[A-Za-z_][\w]*"?)`;
  for (const statement of statements) {
    const s = statement.replace(/\s+/g, ' ').trim();
    let m: RegExpExecArray | null;
    if (/^DO\b/i.test(s)) {
      unreadable.push(s.slice(0, 60));
      continue;
    }
    if ((m = new RegExp(String.raw`^CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?${ident}`, 'i').exec(s))) {
      for (const ref of s.matchAll(new RegExp(String.raw`\bREFERENCES ${ident}`, 'gi')))
        need(ref[1], 'SHARE ROW EXCLUSIVE');
      created.add(m[1]!.toLowerCase().replace(/"/g, ''));
      continue;
    }
    if ((m = new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?${ident}`, 'i').exec(s))) {
      need(m[1], 'ACCESS EXCLUSIVE');
      for (const ref of s.matchAll(new RegExp(String.raw`\bREFERENCES ${ident}`, 'gi')))
        need(ref[1], 'SHARE ROW EXCLUSIVE');
    } else if (
      (m = new RegExp(
        String.raw`^CREATE (?:UNIQUE )?INDEX (?!CONCURRENTLY)(?:IF NOT EXISTS )?(?:${ident} )?ON (?:ONLY )?${ident}`,
        'i',
      ).exec(s))
    ) {
      need(m[2], 'SHARE');
    } else if (
      (m = new RegExp(String.raw`^CREATE (?:OR REPLACE )?(?:CONSTRAINT )?TRIGGER .*? ON ${ident}`, 'i').exec(
        s,
      ))
    ) {
      need(m[1], 'SHARE ROW EXCLUSIVE');
    } else if ((m = new RegExp(String.raw`^DROP TRIGGER (?:IF EXISTS )?${ident} ON ${ident}`, 'i').exec(s))) {
      need(m[2], 'ACCESS EXCLUSIVE');
    } else if (
      (m = /^(?:DROP TABLE|TRUNCATE(?: TABLE)?) (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$/i.exec(s))
    ) {
      for (const table of m[1]!.split(',')) need(table.trim(), 'ACCESS EXCLUSIVE');
    } else if ((m = new RegExp(String.raw`^LOCK (?:TABLE )?(.+?) IN ([A-Z ]+?) MODE`, 'i').exec(s))) {
      for (const table of m[1]!.split(',')) need(table.trim(), m[2]!.toUpperCase() as LockMode);
    } else if ((m = new RegExp(String.raw`^(?:UPDATE|DELETE FROM) (?:ONLY )?${ident}`, 'i').exec(s))) {
      need(m[1], 'SHARE', true);
    }
  }
  return { tables: [...byTable.values()], unreadable };
}

/**
 * Why a migration breaks the rule of this file's comment, or nothing: the locks it takes on tables it did not
 * create, against its `flowboard:lock-first` lines.
 */
export function lockOrderProblems(sql: string): string[] {
  const directives = lockFirstDirectives(sql);
  const declared = new Map<string, LockMode>();
  for (const { mode, tables } of directives) for (const t of tables) declared.set(t, mode);
  const { tables, unreadable } = lockNeeds(sql);
  const problems: string[] = [];
  if (unreadable.length > 0 && directives.length === 0)
    problems.push(
      `a DO block cannot be read for the locks it takes (${unreadable[0]}…): declare them with flowboard:lock-first`,
    );
  const undeclared = tables.filter((t) => !declared.has(t.table));
  if (undeclared.length > 1)
    problems.push(
      `locks ${undeclared.map((t) => `${t.table} (${strongest(t.modes)})`).join(', ')} one after another: ` +
        `declare them with "-- flowboard:lock-first <mode>: <tables>"`,
    );
  for (const t of undeclared) {
    if (t.rows)
      problems.push(
        `updates or deletes rows of ${t.table}, which requests may be holding: declare ` +
          `"-- flowboard:lock-first ${strongest(t.modes)}: ${t.table}" (or backfill in batches outside the migration)`,
      );
    const upgrade = t.modes.findIndex(
      (mode, i) => i > 0 && !t.modes.slice(0, i).some((held) => covers(held, mode)),
    );
    if (upgrade > 0)
      problems.push(
        `locks ${t.table} in ${t.modes[0]} and then in ${t.modes[upgrade]}, a stronger mode it would wait for ` +
          `while holding the first: declare "-- flowboard:lock-first ${strongest(t.modes)}: ${t.table}"`,
      );
  }
  for (const t of tables) {
    const held = declared.get(t.table);
    const most = strongest(t.modes);
    if (held && !covers(held, most))
      problems.push(`declares ${held} on ${t.table}, but a statement needs ${most}`);
  }
  return problems;
}

const strongest = (modes: readonly LockMode[]): LockMode =>
  modes.reduce((a, b) => (LOCK_MODES.indexOf(b) > LOCK_MODES.indexOf(a) ? b : a));

/**
 * The file's top-level statements without comments, string literals' content kept; dollar-quoted bodies (function
 * bodies, DO blocks) are kept whole inside their statement but their `;` do not split.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    let m: RegExpExecArray | null;
    if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
      current += ' ';
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
      current += ' ';
    } else if ((m = /^\$[A-Za-z_]*\$/.exec(rest))) {
      const end = sql.indexOf(m[0], i + m[0].length);
      const stop = end === -1 ? sql.length : end + m[0].length;
      current += ' $body$ ';
      i = stop;
    } else if (rest.startsWith("'")) {
      const end = /^'(?:[^']|'')*'/.exec(rest);
      const literal = end ? end[0] : rest;
      current += literal;
      i += literal.length;
    } else if (sql[i] === ';') {
      if (current.trim()) out.push(current.trim());
      current = '';
      i++;
    } else {
      current += sql[i];
      i++;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
