import BetterSqlite3 from 'better-sqlite3';
import { migrations } from '../../src/db/migrations';
import { openSqlite } from '../../src/db/sqlite';
import { tempDir } from './temp-dir';

/** One schema object as sqlite_master lists it (SQLite's own objects left out). */
export interface SchemaObject {
  type: string;
  name: string;
  sql: string | null;
}

export function schemaOf(db: BetterSqlite3.Database): SchemaObject[] {
  return db
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
    .all() as SchemaObject[];
}

/** The schema a new database gets from the first `upTo` migrations, made in a scratch folder. */
export function schemaAfter(upTo: number): SchemaObject[] {
  const db = openSqlite(
    tempDir('ferry-schema-'),
    migrations.filter((m) => m.version <= upTo),
  );
  try {
    return schemaOf(db);
  } finally {
    db.close();
  }
}

export const latestVersion = (): number => Math.max(...migrations.map((m) => m.version));

const key = (o: SchemaObject) => `${o.type} ${o.name}`;

/**
 * Turns a database at the latest schema back into one at the schema before the last migration, keeping its rows:
 * what an earlier release left behind, for an upgrade to migrate. Worked out from the two schemas rather than
 * written for one migration, so that it follows when migrations are added: objects the last migration added or
 * changed are dropped (columns it added to a table too), those it dropped or changed are created again as they
 * were. Throws when the difference is one it cannot undo that way.
 */
export function rewindLastMigration(file: string): { from: number; to: number } {
  const to = latestVersion() - 1;
  const before = schemaAfter(to);
  const after = schemaAfter(to + 1);
  const beforeByKey = new Map(before.map((o) => [key(o), o]));
  const afterByKey = new Map(after.map((o) => [key(o), o]));
  const db = new BetterSqlite3(file);
  try {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current !== to + 1) throw new Error(`${file} is at schema ${current}, not the latest (${to + 1})`);
    db.transaction(() => {
      // Indexes, triggers and views first: they hang on the tables.
      for (const o of after.filter((o) => o.type !== 'table')) {
        if (beforeByKey.get(key(o))?.sql !== o.sql) db.exec(`DROP ${o.type.toUpperCase()} "${o.name}"`);
      }
      for (const o of after.filter((o) => o.type === 'table')) {
        const was = beforeByKey.get(key(o));
        if (!was) db.exec(`DROP TABLE "${o.name}"`);
        else if (was.sql !== o.sql) {
          const cols = (t: string, d: BetterSqlite3.Database) =>
            (d.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((c) => c.name);
          const scratch = new BetterSqlite3(':memory:');
          scratch.exec(was.sql ?? '');
          const old = new Set(cols(o.name, scratch));
          scratch.close();
          for (const c of cols(o.name, db).filter((c) => !old.has(c)))
            db.exec(`ALTER TABLE "${o.name}" DROP COLUMN "${c}"`);
        }
      }
      for (const o of [...before].sort((a, b) => Number(b.type === 'table') - Number(a.type === 'table'))) {
        if (afterByKey.get(key(o))?.sql !== o.sql && !schemaOf(db).some((x) => key(x) === key(o))) db.exec(o.sql ?? '');
      }
      db.pragma(`user_version = ${to}`);
    })();
    const got = schemaOf(db).map(key).sort();
    const want = before.map(key).sort();
    if (got.join('\n') !== want.join('\n'))
      throw new Error(
        `could not undo migration ${to + 1}: the schema has ${got.join(', ')}; wanted ${want.join(', ')}`,
      );
  } finally {
    db.close();
  }
  return { from: to + 1, to };
}
