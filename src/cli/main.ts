import { parseArgs } from 'node:util';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../accounts/password-hash.ts';
import type { SignIn } from '../accounts/sign-in.ts';
import type { UserDirectory } from '../accounts/users.ts';
import { EXIT_CONFIG } from '../config/error.ts';
import { type Config, ConfigError } from '../config.ts';
import { ApiError } from '../errors.ts';
import { loadCliConfig } from './cli-config.ts';
import { runSetupCommand } from './setup-commands.ts';
import { required, table, UsageError } from './usage.ts';

const USAGE = `Switchyard admin CLI (same configuration as the server; SANDBOX_DIR selects a sandbox's database)

  npm run -s cli -- master-key generate                 prints only a new MASTER_KEY (base64, 32 bytes)
  npm run -s cli -- config check                        names every bad setting (exit 78), or sums up a good one
  npm run -s cli -- user create --email E [--plan P]
  npm run -s cli -- user list                           plan, status, end date and access (yes or lapsed) of each user
  npm run -s cli -- user password --email E             sets the dashboard password, read from stdin (signs out
                                                        the user's open sessions)
  npm run -s cli -- plan list
  npm run -s cli -- plan set --email E --plan P [--yearly | --monthly] [--ends YYYY-MM-DD | --ends none]
                             [--status active | cancelled]
  npm run -s cli -- token create --email E [--name N]   prints only the new token (creates the user if missing)
  npm run -s cli -- token list [--email E]
  npm run -s cli -- token revoke <id or swy_ prefix>
  npm run -s cli -- token revoke --email E --all
  npm run -s cli -- sponsor set --chain C --network N --email E --address A [--budget AMOUNT]
                                [--period day | month | year]
                                                        makes A (a password-protected custodial address of
                                                        user E on C and N) the fee sponsor of C on N; the
                                                        address's password is read from stdin. --budget is
                                                        in the chain's coin per period (default month);
                                                        without it the sponsor has no limit
  npm run -s cli -- sponsor list                        chain, network, address, budget and period of each
  npm run -s cli -- sponsor remove --chain C --network N

(-s keeps npm's own lines off stdout, so a command's answer can be captured.)
`;

const OPTIONS = {
  email: { type: 'string' },
  plan: { type: 'string' },
  name: { type: 'string' },
  ends: { type: 'string' },
  status: { type: 'string' },
  yearly: { type: 'boolean' },
  monthly: { type: 'boolean' },
  all: { type: 'boolean' },
  chain: { type: 'string' },
  network: { type: 'string' },
  address: { type: 'string' },
  budget: { type: 'string' },
  period: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Options = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** What the admin commands work on: the configuration and the users with their tokens and passwords. */
interface AdminContext {
  config: Config;
  users: UserDirectory;
  signIn: SignIn;
  /** The new password, read from standard input (never from the command line, which others can see). */
  readPassword: () => Promise<string>;
}

async function userOf(ctx: AdminContext, email: string) {
  const user = await ctx.users.findByEmail(email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  return user;
}

async function run(ctx: AdminContext, [group, action, target]: string[], opts: Options): Promise<string> {
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  switch (command) {
    case 'user create': {
      const user = await ctx.users.createUser(required(opts.email, 'email'), opts.plan);
      return `created user ${user.email} (${user.id})\n`;
    }
    case 'user password': {
      const user = await userOf(ctx, required(opts.email, 'email'));
      const password = await ctx.readPassword();
      if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH)
        throw new UsageError(
          `the password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
        );
      await ctx.signIn.setPassword(user.id, password);
      return `dashboard password of ${user.email} set\n`;
    }
    case 'user list':
      return table(await ctx.users.listUsers(ctx.config.planGraceMs));
    case 'plan list':
      return table(
        ctx.config.plans.map((p) => ({
          name: p.name,
          period: p.period,
          ...p.quotas,
          default: p.name === ctx.config.defaultPlan ? 'yes' : '',
        })),
      );
    case 'plan set': {
      const user = await userOf(ctx, required(opts.email, 'email'));
      if (opts.ends !== undefined && opts.ends !== 'none' && !/^\d{4}-\d{2}-\d{2}$/.test(opts.ends)) {
        throw new UsageError('--ends must be YYYY-MM-DD or none');
      }
      if (opts.status !== undefined && !['active', 'cancelled'].includes(opts.status)) {
        throw new UsageError('--status must be active or cancelled');
      }
      await ctx.users.setPlan(user.id, {
        plan: required(opts.plan, 'plan'),
        ...(opts.yearly || opts.monthly ? { yearly: Boolean(opts.yearly) } : {}),
        // A plan ending on a day runs through that day (UTC).
        ...(opts.ends === undefined
          ? {}
          : { endsAt: opts.ends === 'none' ? null : `${opts.ends}T23:59:59.999Z` }),
        ...(opts.status === undefined ? {} : { status: opts.status }),
      });
      const row = (await ctx.users.listUsers(ctx.config.planGraceMs)).find((u) => u.id === user.id);
      return `plan of ${user.email} set to ${opts.plan}: ${row?.status}, ends ${row?.endsAt ?? 'never'}, access ${row?.access}\n`;
    }
    case 'token create': {
      const user = await ctx.users.findOrCreate(required(opts.email, 'email'));
      const { token } = await ctx.users.createToken(user.id, opts.name);
      return `${token}\n`;
    }
    case 'token list': {
      const user = opts.email === undefined ? undefined : await userOf(ctx, opts.email);
      return table(await ctx.users.listTokens(user?.id));
    }
    case 'token revoke': {
      if (opts.all) {
        const user = await userOf(ctx, required(opts.email, 'email'));
        return `revoked ${await ctx.users.revokeAllTokens(user.id)} token(s) of ${user.email}\n`;
      }
      if (!(await ctx.users.revokeToken(required(target, 'token id')))) {
        throw new UsageError(`no live token ${target}`);
      }
      return `revoked ${target}\n`;
    }
    default:
      throw new UsageError(command === '' ? 'no command given' : `unknown command "${command}"`);
  }
}

/** The first line of standard input, without its line ending. */
async function passwordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

async function main(argv: string[]): Promise<number> {
  let parsed: { values: Options; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    process.stdout.write(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const setup = await runSetupCommand(parsed.positionals.slice(0, 2).join(' '));
  if (setup !== undefined) {
    process.stdout.write(setup.stdout);
    process.stderr.write(setup.stderr);
    return setup.code;
  }
  const [group, action] = parsed.positionals;
  if (group === 'sponsor') return exitCodeOf(() => sponsorCommand(action, parsed.values));
  const config = loadCliConfig();
  // The users and their tokens are all the commands touch: no chain, node or service is loaded, so a
  // command answers in a fraction of a second. Loaded here, not at the top: master-key generate and config
  // check need none of it.
  const [
    { openReadyStore },
    { UserDirectory },
    { SignIn },
    { SessionStore },
    { PasswordThrottle },
    { kdfCostOf },
    { AccountChanges },
  ] = await Promise.all([
    import('../store/ready-store.ts'),
    import('../accounts/users.ts'),
    import('../accounts/sign-in.ts'),
    import('../accounts/sessions.ts'),
    import('../custody/password-throttle.ts'),
    import('../custody/kdf-cost.ts'),
    import('../accounts/account-changes.ts'),
  ]);
  const store = await openReadyStore(
    config,
    async () => (await import('../gateway-migrations.ts')).GATEWAY_MIGRATIONS,
  );
  try {
    // A revocation or a plan change here reaches running gateways on Postgres at once (NOTIFY).
    const changes = new AccountChanges(store.dialect);
    const users = new UserDirectory(store.db, config.defaultPlan, () => new Date(), changes);
    const signIn = new SignIn(
      store.db,
      users,
      new SessionStore(store.db, config.dashboard.sessionMs, () => new Date(), changes),
      new PasswordThrottle(store.db, config.passwordThrottle),
      config.dashboard.signupOpen,
      () => new Date(),
      kdfCostOf(config.kdfCost).passwords,
    );
    const admin = { config, users, signIn, readPassword: passwordFromStdin };
    return await exitCodeOf(async () => run(admin, parsed.positionals, parsed.values));
  } finally {
    await store.close();
  }
}

/** Writes a command's answer; a refused command's message goes to stderr with its exit code. */
async function exitCodeOf(command: () => Promise<string>): Promise<number> {
  try {
    process.stdout.write(await command());
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ApiError) {
      const fields = error.errors.map((field) => `  ${field.message}\n`).join('');
      process.stderr.write(`${error.message}\n${fields}`);
      return 1;
    }
    throw error;
  }
}

/** The sponsor commands, loaded only when asked for (they need every family's code). */
async function sponsorCommand(action: string | undefined, opts: Options): Promise<string> {
  const { runSponsorCommand } = await import('./sponsor-commands.ts');
  return runSponsorCommand(action, opts, passwordFromStdin);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : `cli failed: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = error instanceof ConfigError ? EXIT_CONFIG : 1;
  },
);
