/**
 * Named SQL parameters: `:notification_id` in the text, `{ notification_id: x }` as the values.
 * A name is `:` then a letter or `_`, not after another `:` or a word character (so `::text` casts
 * and `a:b` stay as they are). The same name twice is the same `$n`.
 */
const NAME = /(?<![:\w]):([A-Za-z_]\w*)/g;

/** A statement's text with `$n` placeholders, and the name of each `$n` in order. */
export interface NamedSql {
  readonly text: string;
  readonly names: readonly string[];
}

const compiled = new Map<string, NamedSql>();
const namesByText = new Map<string, readonly string[]>();

/** The `$n` form of `sql`, computed once per distinct text (statements are built from a few shapes). */
export function compile(sql: string): NamedSql {
  let statement = compiled.get(sql);
  if (statement) return statement;
  const names: string[] = [];
  const text = sql.replace(NAME, (_, name: string) => {
    const at = names.indexOf(name);
    if (at >= 0) return `$${at + 1}`;
    names.push(name);
    return `$${names.length}`;
  });
  statement = { text, names };
  compiled.set(sql, statement);
  namesByText.set(text, names);
  return statement;
}

/** The values of `statement`'s placeholders, in order; throws on a name missing from `params` or not in the statement. */
export function valuesOf(statement: NamedSql, params: Readonly<Record<string, unknown>>): unknown[] {
  const values = statement.names.map((name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`SQL parameter :${name} has no value`);
    return value;
  });
  if (Object.keys(params).length !== statement.names.length) {
    const unknown = Object.keys(params).filter((name) => !statement.names.includes(name));
    throw new Error(`SQL parameters not in the statement: ${unknown.map((name) => `:${name}`).join(', ')}`);
  }
  return values;
}

/** `sql` with named parameters as pg takes it: `$n` text and the values in their order. */
export function named(sql: string, params: Readonly<Record<string, unknown>>): { text: string; values: unknown[] } {
  const statement = compile(sql);
  return { text: statement.text, values: valuesOf(statement, params) };
}

/** `text` with each `$n` of a compiled statement shown by its name (the SQL files of src/queries/); other text unchanged. */
export function withNames(text: string): string {
  const names = namesByText.get(text);
  return names ? text.replace(/\$(\d+)/g, (whole, n: string) => (names[Number(n) - 1] ? `:${names[Number(n) - 1]}` : whole)) : text;
}
