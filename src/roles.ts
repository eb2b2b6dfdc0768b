import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AppContext } from './app-context.ts';
import { familyOf } from './chains/families.ts';
import type { BackgroundTask } from './chains/family.ts';
import { NETWORKS } from './chains/types.ts';
import { SendOutcomes } from './services/send-outcomes.ts';
import { SendSettler } from './services/send-settler.ts';
import { OutboxDeliverer } from './webhooks/deliverer.ts';
import { WebhookSender } from './webhooks/delivery-attempt.ts';
import { OutboxListener } from './webhooks/outbox-listener.ts';
import { ChainWatcher } from './webhooks/watcher.ts';

export interface BackgroundRoles {
  watchers: ChainWatcher[];
  /** The families' own work beside the watchers (families' `watcherTasks`). */
  familyTasks: readonly BackgroundTask[];
  /** Settles the sends a restart cut off from the node's answer, where the watchers run. */
  settler: SendSettler | null;
  /** Writes how sent transactions ended (SUCCESS or FAILED) into the history, where the watchers run. */
  outcomes: SendOutcomes | null;
  deliverer: OutboxDeliverer | null;
  /**
   * Stops every role and waits for what each has under way; once `abandon` aborts (a shutdown's grace is
   * over), webhook and callback POSTs still waiting on their receivers are cut off and handed back.
   */
  stop(abandon?: AbortSignal): Promise<void>;
}

/** A job's callback must answer within this time. */
const CALLBACK_TIMEOUT_MS = 10_000;

export interface RoleOptions {
  /** The watchers' pause between polls (default 500 ms; new blocks announced by subscription wake them sooner). */
  pollMs?: number;
  /** The deliverer's pause between polls (default 250 ms; committed rows wake it sooner). */
  deliveryPollMs?: number;
}

/**
 * The background work beside the API: the node monitor in every process (closeContext stops it), and the
 * roles: one watcher per chain and network that can decode blocks (each takes a database lease, so one
 * instance follows a chain at a time; it reads a block when its node announces it, and polls besides) and
 * the outbox deliverer (rows are claimed, so several instances share the work; woken when rows commit,
 * and polling besides). ROLES chooses which roles a process runs.
 */
export function startBackgroundRoles(ctx: AppContext, options: RoleOptions = {}): BackgroundRoles {
  const instanceId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const watchers: ChainWatcher[] = [];
  if (ctx.config.roles.watcher) {
    for (const chain of ctx.registry.chains()) {
      for (const network of NETWORKS) {
        if (!ctx.registry.networksOf(chain).includes(network)) continue;
        const { follower } = ctx.registry.get(chain, network);
        if (follower === undefined) continue;
        const watcher = new ChainWatcher({
          chain,
          network,
          follower,
          db: ctx.store.db,
          logger: ctx.logger.child({ role: 'watcher', chain, network }),
          troubleLog: ctx.troubleLog,
          metrics: ctx.metrics,
          instanceId,
          enabled: () => !ctx.registry.isDisabled(chain, network),
          outbox: ctx.outbox,
          ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs, idlePollMs: options.pollMs }),
        });
        watcher.start();
        watchers.push(watcher);
      }
    }
  }
  const deliverer = ctx.config.roles.deliverer
    ? new OutboxDeliverer({
        store: ctx.store,
        masterKey: ctx.masterKey,
        logger: ctx.logger.child({ role: 'deliverer' }),
        metrics: ctx.metrics,
        instanceId,
        allowlist: ctx.webhookAllowlist,
        planGraceMs: ctx.config.planGraceMs,
        perHostConcurrency: ctx.config.webhookOriginConcurrency,
        ...(options.deliveryPollMs === undefined ? {} : { pollMs: options.deliveryPollMs }),
      })
    : null;
  // Committed rows wake the deliverer: this process's at once, other instances' through Postgres.
  const wakeups =
    deliverer === null
      ? null
      : new OutboxListener({
          signal: ctx.outbox,
          store: ctx.store,
          databaseUrl: ctx.config.databaseUrl,
          wake: () => deliverer.wakeUp(),
          logger: ctx.logger.child({ role: 'deliverer' }),
        });
  deliverer?.start();
  wakeups?.start();
  // Whichever instances watch the chains also follow what was sent on them.
  const familyTasks = ctx.config.roles.watcher
    ? [...ctx.familyParts.values()].flatMap((parts) => parts.watcherTasks)
    : [];
  for (const task of familyTasks) task.start();
  // They also follow the sends: answering those a restart cut off, and recording how every send ended.
  const sends = { transactions: ctx.transactions, registry: ctx.registry, familyOf };
  const taskLogger = (task: string) => ctx.logger.child({ role: 'watcher', task });
  const settler = ctx.config.roles.watcher
    ? new SendSettler({ ...sends, logger: taskLogger('send-settler') })
    : null;
  settler?.start();
  const outcomes = ctx.config.roles.watcher
    ? new SendOutcomes({ ...sends, logger: taskLogger('send-outcomes') })
    : null;
  outcomes?.start();
  // And the sponsored jobs: paymaster requests, sweeps, activations, and their callbacks.
  const abandonCallbacks = new AbortController();
  const sponsoredJobs = ctx.config.roles.watcher
    ? ctx.sponsorship.runner(
        new WebhookSender({
          masterKey: ctx.masterKey,
          allowlist: ctx.webhookAllowlist,
          timeoutMs: CALLBACK_TIMEOUT_MS,
          connectionsPerOrigin: 4,
          now: () => new Date(),
          abandon: abandonCallbacks.signal,
        }),
        taskLogger('sponsored-jobs'),
        ctx.config.sponsorJobLeaseMs,
      )
    : null;
  sponsoredJobs?.start();
  // Every process probes the nodes: readiness and node metrics are per instance, whatever its roles.
  ctx.nodeMonitor.start();
  return {
    watchers,
    deliverer,
    familyTasks,
    settler,
    outcomes,
    stop: async (abandon) => {
      const abandonNow = () => abandonCallbacks.abort();
      if (abandon?.aborted) abandonNow();
      abandon?.addEventListener('abort', abandonNow, { once: true });
      await Promise.all([
        ...watchers.map((w) => w.stop()),
        wakeups?.stop(),
        deliverer?.stop(abandon),
        ...familyTasks.map((task) => task.stop()),
        settler?.stop(),
        outcomes?.stop(),
        sponsoredJobs?.stop(),
      ]).finally(() => abandon?.removeEventListener('abort', abandonNow));
    },
  };
}
