import { Counter, Gauge, type Registry } from 'prom-client';
import { type KdfScheduler, kdfScheduler } from './kdf-scheduler.ts';

/**
 * The KDF scheduler's load as metrics, read when scraped: derivations running and waiting for users' keys
 * and for sign-ins and sign-ups (`anonymous`), and waiting ones dropped because their client had gone. A
 * sign-in flood shows as a full anonymous queue beside a short user one.
 */
export function registerKdfMetrics(registry: Registry, scheduler: KdfScheduler = kdfScheduler): void {
  new Gauge({
    name: 'switchyard_kdf_derivations',
    help: 'Key derivations (scrypt, PBKDF2) in this process, by class (user, anonymous) and state (running, waiting)',
    labelNames: ['class', 'state'] as const,
    registers: [registry],
    collect() {
      const load = scheduler.load();
      this.set({ class: 'user', state: 'running' }, load.running - load.anonymousRunning);
      this.set({ class: 'user', state: 'waiting' }, load.waiting - load.anonymousWaiting);
      this.set({ class: 'anonymous', state: 'running' }, load.anonymousRunning);
      this.set({ class: 'anonymous', state: 'waiting' }, load.anonymousWaiting);
    },
  });
  new Counter({
    name: 'switchyard_kdf_dropped_total',
    help: 'Waiting key derivations dropped because their client had gone, since the process started',
    registers: [registry],
    collect() {
      // The scheduler counts; the counter shows its count.
      this.reset();
      this.inc(scheduler.load().dropped);
    },
  });
}
