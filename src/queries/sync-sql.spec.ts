import { readdirSync } from 'node:fs';
import { QUERIES_DIR, renderAll, stored, tidy } from './sync-sql';

describe('SQL files (src/queries/*.sql)', () => {
  it('hold every repository method’s current SQL', async () => {
    const files = await renderAll();
    const stale = [...files].filter(([name, text]) => stored(name) !== text).map(([name]) => name);
    const orphans = readdirSync(QUERIES_DIR).filter((name) => name.endsWith('.sql') && !files.has(name));
    expect({ stale, orphans, fix: 'npm run sql:sync (and delete the orphans)' }).toEqual({ stale: [], orphans: [], fix: expect.any(String) });
  });

  it('write a statement without the indentation of the code around it', () => {
    expect(tidy(`\n  SELECT 1\n       FROM t\n       WHERE x\n         AND y  `)).toBe('SELECT 1\nFROM t\nWHERE x\n  AND y;');
  });
});
