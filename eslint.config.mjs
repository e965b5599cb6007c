// ESLint flat config: typescript-eslint's type-checked rules over the service (src/, test/,
// bench/) and both browser workspaces, each file checked against its own tsconfig.json through the
// project service. Formatting is Prettier's job (npm run format), not ESLint's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // clients/web/examples: what a shop writes, type-checked against the packed SDK in a fresh
    // project by test/e2e/web-sdk-package.e2e-spec.ts, not part of any tsconfig here.
    // examples/react-native: an app's source, for a project with React Native installed (not this one).
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.node/**',
      'coverage/**',
      'test/artifacts/**',
      'bench/results/**',
      'clients/web/examples/**',
      'examples/react-native/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A switch over a union names every member; a `default` does not stand in for the missing ones.
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // tsc reports unused locals and parameters (noUnusedLocals/noUnusedParameters); `_` marks one a signature needs.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Off: removing `async` from a method that has no await makes a throw synchronous instead of a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests and benchmarks read supertest's res.body, JSON.parse and driver rows, which are `any` by design; the assertions check them.
    files: ['test/**', 'bench/**', '**/*.spec.ts', 'clients/*/src/**/*.test.ts', 'clients/*/src/**/*.test.tsx', 'clients/*/src/testing/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The service runs on Node: its scripts and tests see Node's globals.
    files: ['src/**', 'test/**', 'bench/**', '*.ts', '*.js', '*.mjs', 'clients/*/scripts/**', 'clients/*/vite.config.ts'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['clients/*/src/**'],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker } },
  },
  {
    // The server SDK runs on Node (20 and later).
    files: ['clients/node/src/**', 'clients/node/vitest.config.mts'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['clients/admin/src/**/*.tsx', 'clients/admin/src/**/*.ts'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Plain JavaScript files belong to no tsconfig.json: lint them without type information.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // bench/parse-server.js is a CommonJS script run by node as is: require is how it imports.
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
