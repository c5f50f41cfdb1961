import {
  covers,
  lockFirstDirectives,
  lockNeeds,
  lockOrderProblems,
  splitStatements,
} from './migration-locks';

describe('lockFirstDirectives', () => {
  it('reads each line: the mode, then the tables', () => {
    expect(
      lockFirstDirectives(`-- why
-- flowboard:lock-first share row exclusive: Stories, tasks
--flowboard:lock-first ACCESS EXCLUSIVE:story_steps
SELECT 1;`),
    ).toEqual([
      { mode: 'SHARE ROW EXCLUSIVE', tables: ['stories', 'tasks'] },
      { mode: 'ACCESS EXCLUSIVE', tables: ['story_steps'] },
    ]);
    expect(lockFirstDirectives('SELECT 1;')).toEqual([]);
  });

  it.each([
    ['an unknown mode', '-- flowboard:lock-first VERY EXCLUSIVE: stories'],
    ['no colon', '-- flowboard:lock-first SHARE stories'],
    ['no table', '-- flowboard:lock-first SHARE:'],
    ['a qualified or quoted name', '-- flowboard:lock-first SHARE: boards.stories'],
  ])('refuses %s, naming the line', (_, line) => {
    expect(() => lockFirstDirectives(`${line}\nSELECT 1;`)).toThrow(`malformed "${line}"`);
  });
});

describe('covers', () => {
  it('a mode covers itself and the weaker ones, except SHARE over SHARE UPDATE EXCLUSIVE', () => {
    expect(covers('ACCESS EXCLUSIVE', 'SHARE')).toBe(true);
    expect(covers('SHARE ROW EXCLUSIVE', 'SHARE ROW EXCLUSIVE')).toBe(true);
    expect(covers('SHARE', 'SHARE ROW EXCLUSIVE')).toBe(false);
    expect(covers('SHARE', 'SHARE UPDATE EXCLUSIVE')).toBe(false);
  });
});

describe('splitStatements', () => {
  it('splits at top-level semicolons, not inside bodies, strings or comments', () => {
    expect(
      splitStatements(`-- a; comment
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE x SET a = 1; RETURN NULL; END $$;
/* block; */ INSERT INTO t VALUES ('a;b');
SELECT 1`),
    ).toEqual([
      'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS  $body$',
      "INSERT INTO t VALUES ('a;b')",
      'SELECT 1',
    ]);
  });
});

describe('lockNeeds', () => {
  it('names the tables it did not create, with the modes their statements need, in order', () => {
    const { tables } = lockNeeds(`
CREATE TABLE story_search (story_id bigint REFERENCES stories (id));
CREATE INDEX story_search_idx ON story_search (story_id);
CREATE INDEX IF NOT EXISTS tasks_idx ON tasks (story_id);
CREATE INDEX CONCURRENTLY comments_idx ON comments (story_id);
CREATE TRIGGER t AFTER UPDATE OF text ON stories FOR EACH ROW EXECUTE FUNCTION f();
ALTER TABLE ONLY phases ADD COLUMN n int;
DROP TRIGGER old ON tags;
UPDATE story_search SET story_id = 1;
DELETE FROM story_tags WHERE false;
LOCK TABLE users IN EXCLUSIVE MODE;`);
    expect(tables).toEqual([
      { table: 'stories', modes: ['SHARE ROW EXCLUSIVE', 'SHARE ROW EXCLUSIVE'], rows: false },
      { table: 'tasks', modes: ['SHARE'], rows: false },
      { table: 'phases', modes: ['ACCESS EXCLUSIVE'], rows: false },
      { table: 'tags', modes: ['ACCESS EXCLUSIVE'], rows: false },
      { table: 'story_tags', modes: ['SHARE'], rows: true },
      { table: 'users', modes: ['EXCLUSIVE'], rows: false },
    ]);
  });

  it('reports a DO block as unreadable', () => {
    expect(lockNeeds('DO $$ BEGIN ALTER TABLE a ADD COLUMN b int; END $$;').unreadable).toHaveLength(1);
  });
});

describe('lockOrderProblems', () => {
  it('lets one table be locked, strongest first', () => {
    expect(
      lockOrderProblems(`ALTER TABLE stories ADD COLUMN x int;
CREATE INDEX s_x ON stories (x);
CREATE TABLE fresh (a int); CREATE INDEX fresh_a ON fresh (a); UPDATE fresh SET a = 1;`),
    ).toEqual([]);
  });

  it('refuses two existing tables locked one after the other, naming both', () => {
    expect(
      lockOrderProblems(`ALTER TABLE story_milestones ADD COLUMN a int;
ALTER TABLE story_steps ADD COLUMN a int;`),
    ).toEqual([
      'locks story_milestones (ACCESS EXCLUSIVE), story_steps (ACCESS EXCLUSIVE) one after another: declare them ' +
        'with "-- flowboard:lock-first <mode>: <tables>"',
    ]);
  });

  it('refuses a weaker lock followed by a stronger one on the same table', () => {
    expect(
      lockOrderProblems('CREATE INDEX s_x ON stories (x);\nALTER TABLE stories ADD COLUMN y int;'),
    ).toEqual([
      'locks stories in SHARE and then in ACCESS EXCLUSIVE, a stronger mode it would wait for while holding the ' +
        'first: declare "-- flowboard:lock-first ACCESS EXCLUSIVE: stories"',
    ]);
  });

  it('refuses rows of an existing table updated without a lock first', () => {
    expect(lockOrderProblems('UPDATE phases SET story_count = 0;')).toEqual([
      'updates or deletes rows of phases, which requests may be holding: declare "-- flowboard:lock-first SHARE: ' +
        'phases" (or backfill in batches outside the migration)',
    ]);
    expect(
      lockOrderProblems('-- flowboard:lock-first SHARE: phases\nUPDATE phases SET story_count = 0;'),
    ).toEqual([]);
  });

  it('accepts the tables declared in a strong enough mode, and refuses a declaration too weak', () => {
    const both = 'ALTER TABLE story_milestones ADD COLUMN a int;\nALTER TABLE story_steps ADD COLUMN a int;';
    expect(
      lockOrderProblems(`-- flowboard:lock-first ACCESS EXCLUSIVE: story_milestones, story_steps\n${both}`),
    ).toEqual([]);
    expect(
      lockOrderProblems(`-- flowboard:lock-first SHARE: story_milestones, story_steps\n${both}`),
    ).toEqual([
      'declares SHARE on story_milestones, but a statement needs ACCESS EXCLUSIVE',
      'declares SHARE on story_steps, but a statement needs ACCESS EXCLUSIVE',
    ]);
  });

  it('refuses a DO block without a declaration', () => {
    expect(lockOrderProblems('DO $$ BEGIN PERFORM 1; END $$;')[0]).toMatch(/a DO block cannot be read/);
  });
});
