import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Resolved from this file, not the working directory, so the build works from the repository root.
const root = fileURLToPath(new URL('.', import.meta.url));

const NAMED_CHUNKS = ['react', 'query'];

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    // The output folder is outside root; Vite only empties it when told to.
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions: {
      output: {
        // Automatic chunks take the name of one module inside them ("QueryError"), which misleads
        // when reading the build output; call them what they are.
        chunkFileNames: (chunk) =>
          chunk.isDynamicEntry || NAMED_CHUNKS.includes(chunk.name)
            ? 'assets/[name]-[hash].js'
            : 'assets/shared-[hash].js',
        // Libraries the first page needs whole get stable, named chunks that stay cached across
        // releases. Mantine is left to automatic splitting so pages load only the parts they use.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
            { name: 'query', test: /node_modules[\\/]@tanstack[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    // `npx vite --config web/vite.config.ts` next to a running server (npm start) on port 8080.
    proxy: {
      '/api': 'http://localhost:8080',
      '/apidoc': 'http://localhost:8080',
    },
  },
});
