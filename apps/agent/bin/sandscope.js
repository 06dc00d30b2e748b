#!/usr/bin/env node
// The CLI entry: registers tsx so the TypeScript sources run directly
// (workspace packages export source; there is no build step between them).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
