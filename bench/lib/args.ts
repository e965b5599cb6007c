/** The word after `name` on the command line (`--only users`), or undefined when `name` is absent. */
export function argText(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** The number after `name` on the command line (`--installations 100000`), or `fallback` when `name` is absent. */
export function argValue(name: string, fallback: number): number {
  const text = argText(name);
  return text === undefined ? fallback : Number(text);
}
