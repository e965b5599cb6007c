import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * docs/testing.md's supertest example is the test test/integration/sandbox.int-spec.ts runs, word for
 * word (less its indentation), so the example a QA team copies is one CI has just run.
 */
describe('docs/testing.md#a-test-with-supertest', () => {
  it('prints the example exactly as the integration test runs it', () => {
    const test = readFileSync(join(ROOT, 'test/integration/sandbox.int-spec.ts'), 'utf8');
    const region = /\n( *)\/\/ docs\/testing\.md example start\n([\s\S]*?)\n *\/\/ docs\/testing\.md example end/.exec(test);
    expect(region).not.toBeNull();
    const indent = region![1].length;
    const example = region![2]
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    const page = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
    const block = /## A test with supertest\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(page);
    expect(block?.[1].trimEnd()).toBe(example.trimEnd());
  });
});
