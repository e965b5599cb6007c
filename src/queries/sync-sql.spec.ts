import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ClassDeclaration, createSourceFile, isClassDeclaration, isMethodDeclaration, ScriptTarget, SyntaxKind } from 'typescript';
import { sqlCasesOf, sqlRepositories } from './generate-sql';
import { SQL_FILES } from './sql-cases';
import { loadRepositories, QUERIES_DIR, renderAll, repositoryFiles, SRC_DIR, stored, tidy } from './sync-sql';

/**
 * Public repository methods without a case, and why: a case needs the method to send its SQL
 * through the DataSource's `query` (docs/architecture.md, "SQL files").
 */
const UNCAPTURED: Record<string, string> = {
  'CredentialsRepository.find': 'TypeORM builds it (findOneBy)',
  'TokenChangesRepository.listen': 'a LISTEN on a connection of its own',
  'InboxChangesRepository.listen': 'a LISTEN on a connection of its own',
};

/** The classes named `*Repository` of a repository file, with their public instance methods. */
function repositoryClasses(path: string): { name: string; methods: string[] }[] {
  const source = createSourceFile(path, readFileSync(join(SRC_DIR, path), 'utf8'), ScriptTarget.Latest, true);
  const hidden = [SyntaxKind.PrivateKeyword, SyntaxKind.ProtectedKeyword, SyntaxKind.StaticKeyword];
  return source.statements
    .filter((node): node is ClassDeclaration => isClassDeclaration(node) && !!node.name?.text.endsWith('Repository'))
    .map((node) => ({
      name: node.name!.text,
      methods: node.members
        .filter(isMethodDeclaration)
        .filter((method) => !method.modifiers?.some((modifier) => hidden.includes(modifier.kind)) && !method.name.getText().startsWith('#'))
        .map((method) => method.name.getText()),
    }));
}

describe('SQL files (src/queries/*.sql)', () => {
  it('hold every repository method’s current SQL', async () => {
    const files = await renderAll();
    const stale = [...files].filter(([name, text]) => stored(name) !== text).map(([name]) => name);
    const orphans = readdirSync(QUERIES_DIR).filter((name) => name.endsWith('.sql') && !files.has(name));
    expect({ stale, orphans, fix: 'npm run sql:sync (and delete the orphans)' }).toEqual({ stale: [], orphans: [], fix: expect.any(String) });
  });

  it('have a case for every public method of every repository', () => {
    const loaded = loadRepositories();
    const registered = new Set<unknown>(sqlRepositories().map(({ repository }) => repository));
    // sql-cases.ts: the repositories whose cases have not moved next to their methods yet.
    const legacyFiles = new Set(SQL_FILES.map((file) => file.file));
    const legacyCases = new Set(SQL_FILES.flatMap((file) => file.cases.map((c) => c.name.split(/[ ,(]/)[0])));
    const unregistered: string[] = [];
    const missing: string[] = [];
    for (const path of repositoryFiles()) {
      for (const { name, methods } of repositoryClasses(path)) {
        const repository = loaded.get(path)?.[name] as (abstract new (...args: never[]) => object) | undefined;
        const cased = new Set([...(repository ? sqlCasesOf(repository) : []).map((c) => `${name}.${c.method}`), ...legacyCases]);
        const uncased = methods.map((method) => `${name}.${method}`).filter((method) => !cased.has(method) && !(method in UNCAPTURED));
        missing.push(...uncased);
        const captured = methods.some((method) => !(`${name}.${method}` in UNCAPTURED));
        if (captured && !registered.has(repository) && !legacyFiles.has(basename(path).replace(/\.ts$/, '.sql'))) unregistered.push(`${path}: ${name}`);
      }
    }
    expect({ unregistered, missing, fix: "@SqlFile('<file>.repository.sql') on the class, @GenerateSql({ params }) on each public method" }).toEqual({
      unregistered: [],
      missing: [],
      fix: expect.any(String),
    });
  });

  it('exempt only public methods that exist and have no case', () => {
    const methods = new Set(repositoryFiles().flatMap((path) => repositoryClasses(path).flatMap(({ name, methods }) => methods.map((m) => `${name}.${m}`))));
    const cased = new Set([
      ...sqlRepositories().flatMap(({ repository, cases }) => cases.map((c) => `${repository.name}.${c.method}`)),
      ...SQL_FILES.flatMap((file) => file.cases.map((c) => c.name.split(/[ ,(]/)[0])),
    ]);
    expect(Object.keys(UNCAPTURED).filter((method) => !methods.has(method) || cased.has(method))).toEqual([]);
  });

  it('write a statement without the indentation of the code around it', () => {
    expect(tidy(`\n  SELECT 1\n       FROM t\n       WHERE x\n         AND y  `)).toBe('SELECT 1\nFROM t\nWHERE x\n  AND y;');
  });
});
