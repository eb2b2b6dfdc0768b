/**
 * One pass of background work at start and then every `intervalMs`, never two at once, until stopped
 * (which waits for the pass in progress). What a pass throws goes to `onError`: a pass that meets a
 * database or node outage is tried again at the next tick, never ends the process.
 */
export class PeriodicPass {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    const tick = () => {
      this.#running ??= this.pass()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.#running = null;
        });
    };
    tick();
    this.#timer = setInterval(tick, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }
}
