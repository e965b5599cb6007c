// Three test tiers (docs/getting-started.md, "Development"; docs/architecture.md, "Tests"), one jest project each:
//   unit         src/**/*.spec.ts            no PostgreSQL, no Redis, no global setup (and test/support's helpers' own specs)
//   integration  test/**/*.int-spec.ts       the app in this process on the real PostgreSQL and Redis
//   e2e          test/e2e/*.e2e-spec.ts      spawned services and CLI (dist/), Chromium, the bench
// `npx jest` runs all three; `npx jest --selectProjects unit` (npm run test:unit) one of them.

/** What every project shares: TypeScript through ts-jest, ESM-only packages through babel. */
const base = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '^.+\\.m?js$': [
      'babel-jest',
      {
        configFile: false,
        babelrc: false,
        plugins: [
          ['babel-plugin-transform-import-meta', { module: 'ES6' }],
          '@babel/plugin-transform-dynamic-import',
          '@babel/plugin-transform-modules-commonjs',
        ],
      },
    ],
  },
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@apidevtools|jose|openid-client|oauth4webapi|fast-check|pure-rand)/)'],
};

/** Checks PostgreSQL and Redis, migrates the run's template database once, and drops it after. */
const services = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    { ...base, displayName: 'unit', roots: ['<rootDir>/src', '<rootDir>/test/support'], testRegex: '\\.spec\\.ts$' },
    { ...base, ...services, displayName: 'integration', roots: ['<rootDir>/test'], testRegex: '\\.int-spec\\.ts$' },
    { ...base, ...services, displayName: 'e2e', roots: ['<rootDir>/test/e2e'], testRegex: '\\.e2e-spec\\.ts$' },
  ],
};
