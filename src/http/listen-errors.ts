/** Where a listener binds and which settings move it, for the one line a failure prints. */
export interface ListenTarget {
  what: string;
  host: string;
  port: number;
  /** e.g. "PORT (or HOST)". */
  settings: string;
}

/** Starts a listener; an address it cannot take becomes one line naming it and the settings that move it. */
export async function listenOrExplain<T>(target: ListenTarget, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const explained = explainListenError(error, target);
    throw explained === undefined ? error : new Error(explained);
  }
}

function explainListenError(
  error: unknown,
  { what, host, port, settings }: ListenTarget,
): string | undefined {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return `${what} cannot listen on ${host}:${port}: the port is in use; set ${settings} to listen elsewhere`;
    case 'EACCES':
      return `${what} cannot listen on ${host}:${port}: a port below 1024 needs privileges; set ${settings}`;
    case 'EADDRNOTAVAIL':
      return `${what} cannot listen on ${host}:${port}: ${host} is not an address of this machine; set ${settings}`;
    default:
      return undefined;
  }
}
