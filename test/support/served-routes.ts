import type { INestApplication } from '@nestjs/common';

/**
 * Every route the running app serves, read from Express's router (not from the controllers), so a
 * route added anywhere is checked without touching the tests that compare them with an OpenAPI
 * document. Swagger UI's own routes and middleware mounted on wildcards are left out.
 */
export function servedRoutes(app: INestApplication): { method: string; path: string }[] {
  const router = app.getHttpAdapter().getInstance().router as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  return router.stack
    .flatMap((layer) => (layer.route ? [layer.route] : []))
    .filter((route) => !route.path.startsWith('/docs') && !route.path.includes('*'))
    .flatMap((route) => Object.keys(route.methods).map((method) => ({ method, path: route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') })));
}
