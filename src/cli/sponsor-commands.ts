import type { AppContext } from '../app-context.ts';
import { AmountError, formatAmount, parseAmount } from '../chains/amount.ts';
import { familyOf, familySettings, isServedChain } from '../chains/families.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { QuotaPeriod } from '../config.ts';
import { closeContext, createContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { loadCliConfig } from './cli-config.ts';
import { required, table, UsageError } from './usage.ts';

export interface SponsorOptions {
  chain?: string | undefined;
  network?: string | undefined;
  email?: string | undefined;
  address?: string | undefined;
  budget?: string | undefined;
  period?: string | undefined;
}

const PERIODS: readonly QuotaPeriod[] = ['day', 'month', 'year'];

/**
 * `sponsor set | list | remove`: the fee sponsor of each chain and network. Loaded only for these commands:
 * they need every family's code (key codecs, coin decimals, which families can sponsor), which takes
 * seconds, where the other commands touch only users and tokens.
 */
export async function runSponsorCommand(
  action: string | undefined,
  opts: SponsorOptions,
  readPassword: () => Promise<string>,
): Promise<string> {
  if (action !== 'set' && action !== 'list' && action !== 'remove')
    throw new UsageError(`unknown command "${['sponsor', action].filter(Boolean).join(' ')}"`);
  // Checked before the context is built, so a typo answers at once.
  const place = action === 'list' ? undefined : placeOf(opts);
  const config = loadCliConfig(process.env, familySettings());
  const ctx = await createContext(config, { logger: createLogger('silent') });
  try {
    if (action === 'list') return await listSponsors(ctx);
    if (action === 'remove') {
      const { chain, network } = place!;
      if (!(await ctx.sponsorship.sponsors.remove(chain, network)))
        throw new UsageError(`no sponsor set for ${chain} ${network}`);
      return `sponsor of ${chain} ${network} removed\n`;
    }
    return await setSponsor(ctx, place!, opts, readPassword);
  } finally {
    await closeContext(ctx);
  }
}

function placeOf(opts: SponsorOptions): { chain: ChainName; network: Network } {
  const chain = required(opts.chain, 'chain');
  if (!isServedChain(chain)) throw new UsageError(`--chain ${chain} is not a chain this build serves`);
  const network = required(opts.network, 'network');
  if (network !== 'mainnet' && network !== 'testnet')
    throw new UsageError('--network must be mainnet or testnet');
  return { chain, network };
}

async function setSponsor(
  ctx: AppContext,
  place: { chain: ChainName; network: Network },
  opts: SponsorOptions,
  readPassword: () => Promise<string>,
): Promise<string> {
  const { chain, network } = place;
  const email = required(opts.email, 'email');
  const period = PERIODS.find((name) => name === (opts.period ?? 'month'));
  if (period === undefined) throw new UsageError('--period must be day, month or year');
  if (ctx.sponsorship.feeSponsorOf(chain) === undefined)
    throw new UsageError(`${chain} has no fee sponsor: its transfers pay their own fees`);
  const coin = ctx.registry.get(chain, network);
  const budget = opts.budget === undefined ? null : budgetOf(opts.budget, coin.nativeDecimals);
  const user = await ctx.users.findByEmail(email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  const target = { userId: user.id, chain, network };
  // The address as custody keeps it, so the sponsor is the very row whose key the password opens.
  const family = familyOf(chain)!;
  const codec = family.keys(network, ctx.config.familySettings);
  const given = required(opts.address, 'address');
  const normalized = (address: string) => {
    try {
      return codec.normalizeAddress(address);
    } catch {
      return address;
    }
  };
  const stored = (await ctx.custody.list(target)).find(
    (row) => normalized(row.address) === normalized(given),
  );
  if (stored === undefined)
    throw new UsageError(`${given} is not a custodial address of ${email} on ${chain} ${network}`);
  if (!stored.secured)
    throw new UsageError(
      `${given} keeps no key (an unsecure address): a sponsor needs a password-protected one`,
    );
  const privateKey = await ctx.custody.exportKey(target, stored.address, await readPassword());
  await ctx.sponsorship.sponsors.set({ ...target, address: stored.address, budget, period }, privateKey);
  const limit =
    budget === null
      ? 'no budget limit'
      : `budget ${formatAmount(budget, coin.nativeDecimals)} ${coin.nativeSymbol} a ${period}`;
  return `sponsor of ${chain} ${network} set: ${stored.address} (${email}), ${limit}\n`;
}

function budgetOf(text: string, decimals: number): bigint {
  try {
    return parseAmount(text, decimals, { allowZero: true });
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    throw new UsageError(`--budget ${error.message.replace(/^amount /, '')} (in the chain's coin)`);
  }
}

async function listSponsors(ctx: AppContext): Promise<string> {
  const sponsors = await ctx.sponsorship.sponsors.list();
  return table(
    sponsors.map(({ chain, network, address, budget, period }) => ({
      chain,
      network,
      address,
      budget: budget === null ? 'none' : budgetText(ctx, chain, network, budget),
      period,
    })),
  );
}

/** The budget in the coin's units; in base units where this gateway does not serve the chain. */
function budgetText(ctx: AppContext, chain: ChainName, network: Network, budget: bigint): string {
  try {
    const coin = ctx.registry.get(chain, network);
    return `${formatAmount(budget, coin.nativeDecimals)} ${coin.nativeSymbol}`;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return `${budget} base units`;
  }
}
