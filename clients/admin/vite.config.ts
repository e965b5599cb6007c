import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The operator dashboard, built into the service's own dist/admin, which the api process serves
 * at /admin (src/admin/admin-pages.middleware.ts). Everything is bundled: no font, script or
 * style from another host.
 */
export default defineConfig({
  base: '/admin/',
  build: {
    outDir: fileURLToPath(new URL('../../dist/admin', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // React, TanStack Query and the Chart.js parts in use: about 120 kB gzipped in all.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      // TanStack Query marks its modules "use client" (for React Server Components); meaningless in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/testing/setup.ts'],
  },
});
