import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;

/** The shipped sources: everything under src/ but the tests and their fakes. */
function shipped(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : shipped(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the package (docs/api.md#react-native-sdk)', () => {
  it('has no runtime dependency: the push libraries are optional peers the app passes in', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({ '@react-native-firebase/messaging': expect.any(String), 'expo-notifications': expect.any(String) });
    expect(manifest.peerDependenciesMeta).toEqual({
      '@react-native-firebase/messaging': { optional: true },
      'expo-notifications': { optional: true },
    });
  });

  it('imports nothing outside itself, not even react-native or a peer (types come from its own interfaces)', () => {
    const imports = shipped().flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]/gm)].map(
        (match) => match[1] ?? match[2],
      ),
    );
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter((specifier) => !specifier.startsWith('./') && !specifier.startsWith('../'))).toEqual([]);
  });
});
