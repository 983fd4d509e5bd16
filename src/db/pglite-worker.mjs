// Runs PGlite (PostgreSQL compiled to WebAssembly) on its own thread and serves it over a Unix
// socket with the PostgreSQL wire protocol. WebAssembly blocks the thread that runs it, so keeping
// it here leaves the HTTP event loop free; the app reaches it through `pg` like a real server.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { dataDir, socketPath, initOnly } = workerData;

// PostgreSQL's shared buffers live in the WebAssembly memory, which never shrinks: initdb's
// default of 128 MB made it 226 MB after a 100,000-finding import. The data directory is real files
// (NODEFS) whose pages the operating system caches anyway, so a smaller pool costs reads through
// that cache, not disk; 32 MB keeps PostgreSQL inside PGlite's initial 128 MB of memory.
const SHARED_BUFFERS = '32MB';

let db;
let server;
try {
  db = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  });
  if (initOnly) {
    // Only making a new data directory (see embedded.ts): this thread ends next.
    await db.close();
  } else {
    // One connection: PGlite has a single session, so a second connection would see the first
    // one's open transaction.
    server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 1 });
    await server.start();
  }
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}

/** This thread's heap and the WebAssembly memory that PostgreSQL runs in (it never shrinks). */
function memory() {
  const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  return {
    type: 'memory',
    heapUsed,
    heapTotal,
    external,
    arrayBuffers,
    wasm: db?.Module?.HEAPU8?.buffer?.byteLength ?? 0,
  };
}

parentPort.on('message', async (message) => {
  if (message?.type === 'memory') {
    parentPort.postMessage(memory());
    return;
  }
  if (message?.type !== 'stop') return;
  try {
    await server?.stop();
    await db?.close();
  } finally {
    parentPort.postMessage({ type: 'stopped' });
  }
});
