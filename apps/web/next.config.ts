import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { NextConfig } from 'next';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const config: NextConfig = {
  // the bundle test (tests/bundle.test.ts) builds into its own folder so it never clobbers a running build
  distDir: process.env.NEXT_DIST_DIR || '.next',
  turbopack: { root },
  outputFileTracingRoot: root,
  poweredByHeader: false,
};

export default config;
