// A worker thread that scores leave-one-corpus-out folds (folds-in-workers.ts). It registers tsx as
// bin/sandscope.js does: the workspace packages export their TypeScript source, and a worker starts bare.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { heldOutFold } = await import('@sandscope/eval');
parentPort.on('message', (name) => {
  try {
    parentPort.postMessage({ name, fold: heldOutFold(workerData.corpora, name, workerData.options) });
  } catch (error) {
    parentPort.postMessage({ name, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
parentPort.postMessage({ ready: true });
