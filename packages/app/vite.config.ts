import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// The platform app and the developer dashboard: one single-page app, served by the platform
// server from dist/ (the CLI resolves this package's dist directory).
export default defineConfig({
  plugins: [react()],
  // Workspace packages are bundled from their TypeScript source ("source" export condition), so
  // the app never waits on another package's build.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1200 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
