import { defineConfig } from 'vite';

/**
 * Library mode, no runtime dependencies. `vite build` makes the ES modules (the page API and the
 * worker module); `vite build --mode worker-iife` makes the worker for `importScripts`, a global
 * `PnsWorker`; `vite build --mode page-iife` makes the page API for a `<script>` tag, one file with
 * no chunk and no hash in its name, a global `Pns` (Vite cannot emit an IIFE for two entries at once).
 */
const IIFE = {
  'worker-iife': { entry: 'src/worker.ts', formats: ['iife' as const], name: 'PnsWorker', fileName: () => 'worker.iife.js' },
  'page-iife': { entry: 'src/index.ts', formats: ['iife' as const], name: 'Pns', fileName: () => 'pns.iife.js' },
};

export default defineConfig(({ mode }) => ({
  build: {
    // Every browser that has Web Push today (Chrome, Edge, Firefox, Safari 16.4+) runs ES2022 as is.
    target: 'es2022',
    sourcemap: true,
    emptyOutDir: !(mode in IIFE),
    lib: mode in IIFE ? IIFE[mode as keyof typeof IIFE] : { entry: { index: 'src/index.ts', worker: 'src/worker.ts' }, formats: ['es' as const] },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts'],
  },
}));
