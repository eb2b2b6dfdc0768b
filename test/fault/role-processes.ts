import { exited, freePort, startDetached, waitFor } from '../helpers/processes.ts';

export type Role = 'api' | 'watcher' | 'deliverer';

/**
 * One gateway process from the build (`node dist/src/main.js`, as the image runs it) with one role, which
 * can be killed with SIGKILL and started again on the same ports. Like compose's `restart: unless-stopped`,
 * a process that exits on its own is started again a second later; `selfExits` keeps why each did.
 */
export class RoleProcess {
  readonly apiUrl: string;
  private readonly probeUrl: string;
  private process: ReturnType<typeof startDetached> | null = null;
  /** What every run of this process printed, for a failure's message. */
  private printed = '';
  /** False once stopped: an exit is then not restarted. */
  private wanted = false;
  private killing = false;
  /** The last lines each exit the test did not cause printed. */
  readonly selfExits: string[] = [];

  private constructor(
    readonly name: string,
    readonly role: Role,
    private readonly env: Record<string, string>,
    port: number,
    metricsPort: number,
  ) {
    this.apiUrl = `http://127.0.0.1:${port}`;
    // The API answers /readyz; the other roles answer on their metrics listener once started.
    this.probeUrl = role === 'api' ? `${this.apiUrl}/readyz` : `http://127.0.0.1:${metricsPort}/metrics`;
  }

  static async create(name: string, role: Role, env: Record<string, string>): Promise<RoleProcess> {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    const own = {
      ...env,
      ROLES: role,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
    };
    return new RoleProcess(name, role, own, port, metricsPort);
  }

  get running(): boolean {
    return (
      this.process !== null && this.process.child.exitCode === null && this.process.child.signalCode === null
    );
  }

  start(): void {
    this.wanted = true;
    const started = startDetached(process.execPath, ['dist/src/main.js'], this.env);
    this.process = started;
    started.child.once('exit', () => {
      if (this.process !== started) return;
      this.printed += started.output();
      this.process = null;
      if (this.killing || !this.wanted) return;
      this.selfExits.push(started.output().trim().split('\n').slice(-30).join('\n'));
      setTimeout(() => {
        if (this.wanted && this.process === null) this.start();
      }, 1_000);
    });
  }

  /** Resolves once the process answers its probe; throws with its output if it exits first. */
  async ready(timeoutMs = 45_000): Promise<void> {
    await waitFor(async () => {
      if (!this.running) throw new Error(`${this.name} exited:\n${this.output()}`);
      const answer = await fetch(this.probeUrl).catch(() => null);
      return answer?.ok ? true : undefined;
    }, timeoutMs);
  }

  /** SIGKILL to the process group: no shutdown hook runs, as when a machine dies. */
  async kill(): Promise<void> {
    const current = this.process;
    if (current === null || !this.running) return;
    this.killing = true;
    try {
      process.kill(-current.child.pid!, 'SIGKILL');
      await exited(current.child, 10_000);
    } catch {
      // gone already
    } finally {
      this.killing = false;
    }
  }

  /** SIGTERM, then SIGKILL after 15 s; not restarted. */
  async stop(): Promise<void> {
    this.wanted = false;
    const current = this.process;
    if (current === null || !this.running) return;
    process.kill(-current.child.pid!, 'SIGTERM');
    await exited(current.child, 15_000).catch(() => this.kill());
  }

  output(): string {
    return `--- ${this.name}\n${this.printed}${this.process?.output() ?? ''}`;
  }
}
