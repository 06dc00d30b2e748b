// The investigation workspace's public surface (`@sandscope/engine/workspace`). Fakes are in `@sandscope/engine/testing`.
export * from './agent-loop.ts';
export * from './history.ts';
export * from './planner.ts';
export * from './read-file.ts';
export * from './sandbox-runner.ts';
export * from './sandbox-tools.ts';
export * from './search-files.ts';
export * from './search-runbooks.ts';
export * from './subject.ts';
export * from './tools.ts';
export * from './turn-citation-check.ts';
export * from './turn-text.ts';
export * from './workspace-files.ts';
export * from './workspace-path.ts';
export * from './file-passages.ts';
export * from './similar-lines.ts';
export * from './sandbox-plan.ts';
