import { dropTestDatabase, TEMPLATE_DATABASE_ENV } from './test-database';

/** Drops the run's template database (test/support/global-setup.ts) once every test file has ended. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env[TEMPLATE_DATABASE_ENV];
  if (!template) return;
  delete process.env[TEMPLATE_DATABASE_ENV];
  await dropTestDatabase(template);
}
