import mysql from 'mysql2/promise';
import pg from 'pg';
import { SourceRefused } from '../../domain/ports/filesender-source';

/**
 * A FileSender database opened read-only: PostgreSQL (`pg`) or MySQL/MariaDB (`mysql2`). Each dialect gives its
 * placeholders, its way of reading a DATETIME as UNIX seconds (FileSender writes them as wall-clock text; they
 * are read as UTC) and the names its tables really have (MySQL keeps FileSender's `Transfers`, PostgreSQL
 * folds them to `transfers`).
 */
export interface SourceDb {
  dialect: 'postgres' | 'mysql';
  /** Where it is, without a password. */
  where: string;
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** SQL giving a DATETIME column as UNIX seconds (NULL stays NULL). */
  seconds(column: string): string;
  /** The table's name as the database has it, or null; and its columns (lower case). */
  table(name: string): Promise<{ name: string; columns: Set<string> } | null>;
  close(): Promise<void>;
}

export async function openSourceDb(url: string): Promise<SourceDb> {
  let u: URL;
  try {
    // No host before the path (`postgres://user@/db?host=/run/postgresql`): the socket named in the query is the
    // host; WHATWG URLs refuse credentials without a host, so one stands in.
    u = new URL(url.replace(/^([a-z]+:\/\/(?:[^@/]*@)?)\//i, '$1localhost/'));
  } catch {
    throw new SourceRefused(
      `--database: not a URL: give postgres://… or mysql://… (e.g. mysql://filesender:secret@localhost/filesender)`,
    );
  }
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme === 'postgres' || scheme === 'postgresql') return openPostgres(u);
  if (scheme === 'mysql' || scheme === 'mariadb') return openMysql(u);
  throw new SourceRefused(`--database: unknown scheme ${scheme}: give postgres://… or mysql://… (MariaDB too)`);
}

function hidden(u: URL): string {
  const c = new URL(u.href);
  if (c.password) c.password = '***';
  return c.href;
}

async function openPostgres(u: URL): Promise<SourceDb> {
  // A Unix socket is named in the query (`?host=/run/postgresql&port=5432`), as libpq's URLs allow.
  const socketDir = u.searchParams.get('host');
  const config: pg.ClientConfig = {
    host: socketDir ?? (decodeURIComponent(u.hostname) || 'localhost'),
    port: Number(u.searchParams.get('port') ?? u.port) || 5432,
    user: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    connectionTimeoutMillis: 10_000,
  };
  const client = new pg.Client(config);
  try {
    await client.connect();
    // Nothing this session does can change FileSender's data.
    await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  } catch (e) {
    await client.end().catch(() => {});
    throw new SourceRefused(`cannot open FileSender's database ${hidden(u)}: ${(e as Error).message}`);
  }
  return {
    dialect: 'postgres',
    where: hidden(u),
    async query<T>(text: string, params: unknown[] = []) {
      let n = 0;
      return (
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    },
    seconds: (c) => `CAST(EXTRACT(EPOCH FROM ${c}) AS BIGINT)`,
    async table(name) {
      const found = (
        await client.query<{ table_name: string; column_name: string }>(
          `SELECT table_name, column_name FROM information_schema.columns
           WHERE table_schema = current_schema() AND lower(table_name) = lower($1)`,
          [name],
        )
      ).rows;
      if (!found.length) return null;
      return { name: `"${found[0].table_name}"`, columns: new Set(found.map((r) => r.column_name.toLowerCase())) };
    },
    close: () => client.end(),
  };
}

async function openMysql(u: URL): Promise<SourceDb> {
  const socket = u.searchParams.get('socket') ?? u.searchParams.get('socketPath');
  let conn: mysql.Connection;
  try {
    conn = await mysql.createConnection({
      ...(socket
        ? { socketPath: socket }
        : { host: decodeURIComponent(u.hostname) || 'localhost', port: Number(u.port) || 3306 }),
      user: decodeURIComponent(u.username) || undefined,
      password: decodeURIComponent(u.password) || undefined,
      database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
      connectTimeout: 10_000,
      // Dates as FileSender wrote them are turned into seconds in SQL; numbers past 2^53 would be strings.
      supportBigNumbers: true,
      bigNumberStrings: false,
      dateStrings: true,
    });
    await conn.query("SET time_zone = '+00:00'");
    await conn.query('SET SESSION TRANSACTION READ ONLY');
  } catch (e) {
    throw new SourceRefused(`cannot open FileSender's database ${hidden(u)}: ${(e as Error).message}`);
  }
  return {
    dialect: 'mysql',
    where: hidden(u),
    async query<T>(text: string, params: unknown[] = []) {
      const [rows] = await conn.query(text, params);
      return rows as T[];
    },
    seconds: (c) => `UNIX_TIMESTAMP(${c})`,
    async table(name) {
      const [rows] = await conn.query(
        `SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS
         WHERE TABLE_SCHEMA = DATABASE() AND LOWER(TABLE_NAME) = LOWER(?)`,
        [name],
      );
      const found = rows as { t: string; c: string }[];
      if (!found.length) return null;
      return { name: `\`${found[0].t}\``, columns: new Set(found.map((r) => r.c.toLowerCase())) };
    },
    close: () => conn.end(),
  };
}
