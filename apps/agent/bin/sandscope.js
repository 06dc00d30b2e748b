#!/usr/bin/env node
// The CLI entry: registers tsx so the TypeScript sources run directly
// (workspace packages export source; there is no build step between them).
import { register } from 'tsx/esm/api';

register();
// `sandscope eval --json | head`: the reader closing the pipe ends nothing with a stack trace (closed-pipe.ts).
const { tolerateClosedPipe } = await import('../src/closed-pipe.ts');
tolerateClosedPipe();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
