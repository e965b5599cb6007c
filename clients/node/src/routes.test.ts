import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');

/** Every operation of the API (/api/v1) has a method: index.ts names its operationId in the types it uses. */
describe('PushClient', () => {
  it('has a method for every /api/v1 route of openapi.json', () => {
    const document = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([, item]) => Object.values(item).map((operation) => operation.operationId));
    expect(operations.length).toBeGreaterThanOrEqual(30);
    const source = readFileSync(join(root, 'src/index.ts'), 'utf8');
    // The stream's method reads the response itself, so no type names its operation.
    const covered = (id: string) => source.includes(`'${id}'`) || (id === 'Inbox_stream' && source.includes("'inbox', 'stream'"));
    expect(operations.filter((id) => !covered(id))).toEqual([]);
  });
});
