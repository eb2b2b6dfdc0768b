import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { familyOf } from '../chains/families.ts';
import type { ChainName, Network } from '../chains/types.ts';

/** The sandbox operator who owns every sponsor: apart from the demo user, so its addresses stay its own. */
export const SANDBOX_OPERATOR_EMAIL = 'operator@switchyard.local';

/** Each sponsor's address, by chain and network, as sandbox.json lists them. */
export type SandboxSponsors = Record<string, Partial<Record<Network, string>>>;

/**
 * What a new sponsor is given from its devnet's faucet, in the coin's units, by family: plenty for a
 * sandbox's sponsored transfers, well within what each faucet gives in one request.
 */
const FUNDING: Readonly<Record<string, string>> = { tron: '200000', evm: '100', solana: '100' };

/**
 * TRX a Tron sponsor stakes (Stake 2.0) for each resource it lends: the devnet stakes 10 billion TRX
 * network-wide, so 100,000 TRX gives about two million energy a day, some thirty USDT transfers.
 */
const TRON_STAKE: Readonly<Record<string, string>> = { ENERGY: '100000', BANDWIDTH: '10000' };

/** The sponsors' addresses at once, and the setting up of new ones, which takes a while. */
export interface SandboxSponsorSetup {
  sponsors: SandboxSponsors;
  /** Whether any sponsor is new (a first start): `ready` settles once every one is funded and set. */
  setting: boolean;
  /** Settles when every new sponsor is set up (one that could not be is said on stderr). */
  ready: Promise<void>;
  /** Called before the context closes: a setup cut short by the stop is not reported as a failure. */
  stop(): void;
}

/**
 * Gives every chain and network whose family can sponsor fees a funded sponsor: a custodial address of
 * the sandbox operator, paid from the devnet's faucet (a Tron sponsor also stakes TRX for the energy and
 * bandwidth it lends), its key sealed for the sponsorship jobs. A sponsor an earlier start set is kept,
 * devnet chain and all. The addresses are known at once (their keys are made here); `ready` settles once
 * the new ones are funded and set, which the sandbox waits for before it says it is ready.
 */
export async function setUpSandboxSponsors(
  ctx: AppContext,
  app: FastifyInstance,
  places: readonly { chain: ChainName; network: Network }[],
): Promise<SandboxSponsorSetup> {
  const sponsored = places.filter(
    ({ chain, network }) =>
      ctx.sponsorship.feeSponsorOf(chain) !== undefined && ctx.faucets?.get(chain, network) !== undefined,
  );
  const operator =
    (await ctx.users.findByEmail(SANDBOX_OPERATOR_EMAIL)) ??
    (await ctx.users.createUser(SANDBOX_OPERATOR_EMAIL, 'sandbox'));
  const sponsors: SandboxSponsors = {};
  const fresh: NewSponsor[] = [];
  for (const { chain, network } of sponsored) {
    const kept = await ctx.sponsorship.sponsors.get(chain, network);
    const family = familyOf(chain)!;
    const codec = family.keys(network, ctx.config.familySettings);
    const pair = kept === null ? codec.generate() : undefined;
    const address = kept?.address ?? codec.normalizeAddress(pair!.address);
    sponsors[chain] = { ...sponsors[chain], [network]: address };
    if (pair !== undefined)
      fresh.push({ chain, network, family: family.name, address, privateKey: pair.privateKey });
  }
  let stopped = false;
  const ready =
    fresh.length === 0
      ? Promise.resolve()
      : setUp(ctx, app, operator.id, fresh, () => stopped).catch((error: unknown) => {
          if (!stopped)
            process.stderr.write(`setting up the fee sponsors failed: ${(error as Error).message}\n`);
        });
  return {
    sponsors,
    setting: fresh.length > 0,
    ready,
    stop: () => {
      stopped = true;
    },
  };
}

interface NewSponsor {
  chain: ChainName;
  network: Network;
  family: string;
  address: string;
  /** Hex. */
  privateKey: string;
}

async function setUp(
  ctx: AppContext,
  app: FastifyInstance,
  operatorId: string,
  fresh: readonly NewSponsor[],
  stopped: () => boolean,
): Promise<void> {
  // Only for the Tron sponsors' staking, through the API as any client stakes; revoked once done.
  let token: Promise<string> | undefined;
  const operatorToken = () => {
    token ??= ctx.users.createToken(operatorId, 'sandbox sponsors').then((made) => made.token);
    return token;
  };
  const results = await Promise.allSettled(
    fresh.map(async ({ chain, network, family, address, privateKey }) => {
      const target = { userId: operatorId, chain, network };
      // Without a password the custody keeps no key (and derives none, which would take a second or
      // more each): the sponsorship jobs sign with the key sealed in `sponsors`.
      await ctx.custody.import(target, privateKey);
      await ctx.faucets!.get(chain, network)!.fund({ address, amount: FUNDING[family] ?? '100' });
      if (family === 'tron') await stakeForLending(app, await operatorToken(), network, address, privateKey);
      await ctx.sponsorship.sponsors.set({ ...target, address, budget: null, period: 'month' }, privateKey);
    }),
  );
  if (stopped()) return;
  if (token !== undefined) await ctx.users.revokeToken(await token, operatorId);
  results.forEach((result, i) => {
    const { chain, network } = fresh[i]!;
    if (result.status === 'rejected') {
      process.stderr.write(
        `the sandbox has no fee sponsor on ${chain} ${network}: ${(result.reason as Error).message}\n`,
      );
    }
  });
}

/** Stakes TRX for the energy and bandwidth a Tron sponsor lends, signed with its private key. */
async function stakeForLending(
  app: FastifyInstance,
  token: string,
  network: Network,
  address: string,
  privateKey: string,
): Promise<void> {
  for (const [resource, amount] of Object.entries(TRON_STAKE)) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/tron/freeze',
      headers: { authorization: `Bearer ${token}`, 'x-network': network },
      payload: { address, amount, resource, privatekey: privateKey },
    });
    if (res.statusCode !== 200) throw new Error(`staking TRX for ${resource} answered ${res.statusCode}`);
  }
}
