import { defineConfig } from 'vite';

/**
 * Library mode, no runtime dependencies. `vite build` makes the ES modules (the page API and the
 * worker module); `vite build --mode worker-iife` makes the worker for `importScripts`, a global
 * `PnsWorker` (Vite cannot emit an IIFE for two entries at once).
 */
export default defineConfig(({ mode }) => ({
  build: {
    // Every browser that has Web Push today (Chrome, Edge, Firefox, Safari 16.4+) runs ES2022 as is.
    target: 'es2022',
    sourcemap: true,
    emptyOutDir: mode !== 'worker-iife',
    lib:
      mode === 'worker-iife'
        ? { entry: 'src/worker.ts', formats: ['iife'], name: 'PnsWorker', fileName: () => 'worker.iife.js' }
        : { entry: { index: 'src/index.ts', worker: 'src/worker.ts' }, formats: ['es'] },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts'],
  },
}));
