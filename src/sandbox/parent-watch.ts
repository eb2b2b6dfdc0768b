/** How often the parent is looked for. */
const CHECK_MS = 1_000;

/**
 * Calls `then` once the process that started this one has exited (the process is then handed to
 * another parent, and `process.ppid` changes). Nothing tells a child when its parent is killed with
 * SIGKILL: it is noticed within a second.
 */
export function whenParentExits(then: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    then();
  }, CHECK_MS);
  // Watching alone keeps nothing running.
  timer.unref();
}
