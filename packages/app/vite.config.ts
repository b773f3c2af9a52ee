import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform app and the developer dashboard: one single-page app, served by the platform
// server from dist/ (the CLI resolves this package's dist directory).
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
