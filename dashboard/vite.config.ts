import { defineConfig } from 'vite';

/** The project folder, one level up: the built assets go to its dist/, which the gateway serves. */
const here = (relative: string) => decodeURIComponent(new URL(relative, import.meta.url).pathname);

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  // Preact's automatic JSX runtime (the tsconfig says the same for the type checker).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/dashboard'),
    emptyOutDir: true,
    // The gateway's CSP allows scripts from 'self' only: no inline preload helper, no inline styles.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  server: {
    // `npx vite --config dashboard/vite.config.ts` against a running sandbox (DASHBOARD_API, default :8080).
    proxy: { '/api': process.env.DASHBOARD_API ?? 'http://127.0.0.1:8080' },
  },
});
