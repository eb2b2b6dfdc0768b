import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** How often the worker copies the write-ahead log back into the database file. */
const CHECKPOINT_EVERY_MS = 200;
/** How often the log's size is looked at until it grows enough to want the worker. */
const WATCH_EVERY_MS = 1_000;
/**
 * The worker starts once the log holds this much (a quarter of what makes SQLite checkpoint by itself):
 * a short command (the CLI) and an idle or read-mostly process (the API role) never pay for a thread.
 */
const START_AT_BYTES = 1024 * 1024;
/** What SQLite does by itself (pages of WAL before a commit checkpoints), restored if the worker ends. */
const AUTOCHECKPOINT_PAGES = 1_000;

/**
 * The worker: its own connection to the same file, checkpointing in the background (PASSIVE: it never
 * waits for, nor holds up, the main connection's readers and writers). CommonJS, as an eval'd worker is.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints the SQLite write-ahead log on a worker thread instead of in the commit that crosses the
 * threshold. A checkpoint writes the log's pages into the database file and syncs it; done by a commit,
 * that stalled the event loop (and every request waiting on it) for 10-20 ms on a busy disk every few
 * hundred commits. The main connection's own checkpoints are turned off while the worker runs and turned
 * back on if it ends; on close SQLite checkpoints what is left, as always.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;
  private closed = false;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly database: SqliteDatabase.Database,
    private readonly file: string,
  ) {
    this.watch = setInterval(() => {
      if (walBytes(file) < START_AT_BYTES) return;
      clearInterval(this.watch);
      this.start();
    }, WATCH_EVERY_MS);
    this.watch.unref();
  }

  private start(): void {
    if (this.closed) return;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: this.file,
        everyMs: CHECKPOINT_EVERY_MS,
      },
    });
    worker.unref();
    // Whatever ends the worker (an error, a crash), the main connection checkpoints by itself again.
    const restore = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (this.database.open) this.database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    };
    worker.on('error', restore);
    worker.on('exit', restore);
    worker.on('online', () => {
      if (this.worker === worker && this.database.open) this.database.pragma('wal_autocheckpoint = 0');
    });
    this.worker = worker;
  }

  /** Stops the worker (its last checkpoint done) before the main connection closes. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watch);
    const worker = this.worker;
    if (worker === null) return;
    this.worker = null;
    if (this.database.open) this.database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // the process waits for the last checkpoint
    worker.postMessage('close');
    await exited;
  }
}

/** The write-ahead log's size now (0 while there is none). */
function walBytes(file: string): number {
  return statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}
