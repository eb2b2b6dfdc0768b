// Stopping the gateway well inside a container's grace (`docker stop` waits 10 s, then SIGKILLs), however
// slow its nodes and webhook receivers are: work in flight gets a short grace to finish, then what still
// waits on someone else is abandoned and what the process holds is handed back.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.ts';
import { closeContext } from './context.ts';
import type { BackgroundRoles } from './roles.ts';

/** How long requests, webhook POSTs and node calls in flight may take to finish at a stop. */
export const SHUTDOWN_GRACE_MS = 2_000;
/** After the grace, how long answers being written get before the connections still open are cut. */
const CUT_CONNECTIONS_AFTER_MS = 500;

export interface RunningGateway {
  ctx: AppContext;
  /** The API, where this process serves it. */
  app: FastifyInstance | null;
  /** The metrics listener, where there is one. */
  metrics: { close(): Promise<void> } | null;
  roles: BackgroundRoles;
}

/**
 * Stops the gateway:
 * 1. at once, the listeners close (new connections are refused, idle ones closed), the roles stop taking
 *    work, and the node monitor stops probing;
 * 2. requests and deliveries in flight may finish within `graceMs`; node calls are abandoned as soon as
 *    no request may need one (the API closed) or when the grace is over: requests then answer 503, and
 *    the watchers, sends and sponsored jobs waiting on a node end (a watcher releases its lease, a
 *    sponsored job is handed back);
 * 3. when the grace is over, webhook and callback POSTs still waiting on their receivers are cut off and
 *    their notifications handed back unsent; a little later the last HTTP connections are cut;
 * 4. the store closes once the writes under way are done (a transaction is finished, never cut).
 */
export async function stopGateway(gateway: RunningGateway, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  const { ctx, app, metrics, roles } = gateway;
  let nodeCallsAbandoned: Promise<void> | null = null;
  const abandonNodeCalls = () => {
    nodeCallsAbandoned ??= ctx.registry.closeAll();
    return nodeCallsAbandoned;
  };
  const graceOver = new AbortController();
  const grace = setTimeout(() => {
    graceOver.abort();
    void abandonNodeCalls();
  }, graceMs);
  const cut = setTimeout(() => app?.server.closeAllConnections(), graceMs + CUT_CONNECTIONS_AFTER_MS);
  try {
    await Promise.all([
      app?.close().then(abandonNodeCalls) ?? abandonNodeCalls(),
      metrics?.close(),
      roles.stop(graceOver.signal),
      ctx.nodeMonitor.stop(),
    ]);
    await abandonNodeCalls();
  } finally {
    clearTimeout(grace);
    clearTimeout(cut);
  }
  await closeContext(ctx);
}

/**
 * A last resort beside `stopGateway`: should the stop still not be done `ms` after it began (a bug, a
 * disk that hangs), the process exits anyway, with status 1 and a line that says so.
 */
export function exitIfStillStoppingAfter(ms: number, log: (message: string) => void): NodeJS.Timeout {
  const timer = setTimeout(() => {
    log(`the stop did not finish within ${ms / 1000} s; exiting without waiting any longer`);
    process.exit(1);
  }, ms);
  // Only a stop that hangs keeps it waiting; a finished one exits on its own.
  timer.unref();
  return timer;
}
