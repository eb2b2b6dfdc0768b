/** Solana's token reads: a mint's description and an owner's balance of it. */
import { ApiError } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import { SolanaAdapter } from './adapter.ts';
import { solanaKit } from './kit.ts';
import { addressField } from './request-fields.ts';
import { decodeMint, decodeTokenAccount, type Mint, TOKEN_2022_PROGRAM } from './token-accounts.ts';
import { readTokenMetadata } from './token-metadata.ts';

export class SolanaTokenReads {
  constructor(private readonly registry: ChainRegistry) {}

  /** What the mint says of its token, with the name and symbol its metadata holds (null without). */
  async mint(network: Network, mintAddress: string) {
    addressField('mint', mintAddress);
    const adapter = this.adapter(network);
    const { mint, data } = await readMint(adapter, mintAddress);
    const metadata = await readTokenMetadata(adapter, mintAddress, data);
    return {
      mint: mintAddress,
      program: mint.program === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token',
      decimals: mint.decimals,
      supply: assetAmount(mint.supply, mint.decimals),
      supply_raw: mint.supply.toString(),
      mintAuthority: mint.mintAuthority,
      freezeAuthority: mint.freezeAuthority,
      name: metadata?.name ?? null,
      symbol: metadata?.symbol ?? null,
      uri: metadata?.uri ?? null,
    };
  }

  /** What `owner` holds of the mint, over all its token accounts of that mint. */
  async balance(network: Network, owner: string, mintAddress: string) {
    addressField('address', owner);
    addressField('mint', mintAddress);
    const adapter = this.adapter(network);
    const { mint } = await readMint(adapter, mintAddress);
    const [{ address }, rpc] = await Promise.all([solanaKit(), adapter.rpc.kit()]);
    const { value } = await rpc
      .getTokenAccountsByOwner(
        address(owner),
        { mint: address(mintAddress) },
        { commitment: 'confirmed', encoding: 'base64' },
      )
      .send();
    let units = 0n;
    for (const { account } of value) {
      const held = decodeTokenAccount(account.owner, Buffer.from(account.data[0], 'base64'));
      if (held !== null) units += held.amount;
    }
    return {
      address: owner,
      mint: mintAddress,
      decimals: mint.decimals,
      balance: assetAmount(units, mint.decimals),
      balance_raw: units.toString(),
      tokenAccounts: value.length,
    };
  }

  private adapter(network: Network): SolanaAdapter {
    return this.registry.adapterOf('solana', network, SolanaAdapter);
  }
}

/**
 * The mint at `mintAddress` and its data; when no mint is there, `status` (400 for a read, as the other
 * chains answer an unknown contract; 422 for a send, whose other refusals are 422).
 */
export async function readMint(
  adapter: SolanaAdapter,
  mintAddress: string,
  status = 400,
): Promise<{ mint: Mint; data: Uint8Array }> {
  const account = await adapter.getAccount(mintAddress);
  const mint = account === null ? null : decodeMint(account.owner, account.data);
  if (account === null || mint === null)
    throw new ApiError(status, `${mintAddress} is not an SPL token mint`);
  return { mint, data: account.data };
}
