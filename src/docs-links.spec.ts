import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * Links from code and documents into docs/ point at something that exists: docs/api.md by heading
 * anchor, docs/decisions/ pages by file name (docs/decisions/README.md).
 */
const ROOT = resolve(__dirname, '..');
const API = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

function textFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return textFiles(path);
    return /\.(ts|tsx|md)$/.test(entry.name) ? [path] : [];
  });
}

const SOURCES = [...['src', 'test', 'bench', 'docs', 'clients'].flatMap((dir) => textFiles(join(ROOT, dir))), join(ROOT, 'README.md')];

/** GitHub's id for a heading: lower case, punctuation dropped, each space a hyphen. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown page: explicit `<a id>` ones and its headings' ids. */
function anchorsOf(markdown: string): Set<string> {
  return new Set([
    ...[...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]),
    ...[...markdown.matchAll(/^#{1,6} (.*)$/gm)].map((match) => slug(match[1])),
  ]);
}

/** `pattern`'s first group in every source file, as "file: match". */
function citations(pattern: RegExp): { where: string; target: string }[] {
  return SOURCES.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(pattern)].map((match) => ({ where: `${relative(ROOT, file)}: ${match[0]}`, target: match[1] })),
  );
}

describe('links into docs/', () => {
  it('cites docs/api.md by an anchor the page has', () => {
    const anchors = anchorsOf(API);
    const cited = citations(/api\.md#([\w-]+)/g);
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ target }) => !anchors.has(target)).map(({ where }) => where)).toEqual([]);
  });

  it('cites docs/testing.md by an anchor the page has', () => {
    const anchors = anchorsOf(readFileSync(join(ROOT, 'docs/testing.md'), 'utf8'));
    const cited = citations(/testing\.md#([\w-]+)/g);
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ target }) => !anchors.has(target)).map(({ where }) => where)).toEqual([]);
  });

  it('cites docs/api.md by anchor, never by a section number, which changes', () => {
    const byNumber = citations(/(docs\/api\.md,?(?: |\n[ \t]*(?:\*|\/\/)[ \t]*)(?:sections? )?\d[\d.]*|\[docs\/api\.md\]\([^)]*\),? \d[\d.]*)/g);
    expect(byNumber.map(({ where }) => where)).toEqual([]);
  });

  it('gives every numbered heading of docs/api.md a number-free anchor on the line before it', () => {
    const lines = API.split('\n');
    const bare = lines.filter((line, i) => /^#{2,3} \d/.test(line) && !/^<a id="[a-z-]+"><\/a>$/.test(lines[i - 2] ?? ''));
    expect(bare).toEqual([]);
  });

  it('cites docs/decisions/ pages that exist', () => {
    const cited = citations(/docs\/decisions\/(\d{4}-[\w-]+\.md)/g);
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ target }) => !existsSync(join(ROOT, 'docs/decisions', target))).map(({ where }) => where)).toEqual([]);
  });

  it('lists every decision page in docs/decisions/README.md', () => {
    const index = readFileSync(join(ROOT, 'docs/decisions/README.md'), 'utf8');
    const pages = readdirSync(join(ROOT, 'docs/decisions')).filter((name) => /^\d{4}-.*\.md$/.test(name));
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });

  it('finds the anchors GitHub gives headings and the explicit ones', () => {
    expect([...anchorsOf('## 5.1 Send: `POST /api/v1/notifications`\n<a id="send"></a>\n## Route index\n')]).toEqual([
      'send',
      '51-send-post-apiv1notifications',
      'route-index',
    ]);
  });
});
