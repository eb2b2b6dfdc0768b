export const SANDBOX_USAGE = `Usage: npm run sandbox [-- --reset]

  --reset   start clean: delete the devnets' chains, the database, sandbox.json and the log in SANDBOX_DIR
`;

export interface SandboxArgs {
  reset: boolean;
  help: boolean;
}

export class SandboxUsageError extends Error {}

export function parseSandboxArgs(argv: readonly string[]): SandboxArgs {
  const args: SandboxArgs = { reset: false, help: false };
  for (const arg of argv) {
    if (arg === '--reset') args.reset = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
    else throw new SandboxUsageError(`unknown argument ${arg}\n${SANDBOX_USAGE}`);
  }
  return args;
}
