// Token-2022: the second demo mint, its accounts in the token index and balances, a kit transfer under the
// Token-2022 program id, and the Metaplex metadata of both demo mints.
import { address, generateKeyPairSigner, getAddressDecoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  METADATA_PROGRAM,
  metadataAddress,
  type SolanaDevnet,
  startSolanaDevnet,
  TOKEN_2022_PROGRAM,
} from '../../../devnets/solana/index.ts';
import { kitWire } from '../../helpers/solana-wire.ts';
import { associatedTokenAccount, rpc, sendWire, tokenAmount, tokenSendInstructions } from './helpers.ts';

const TOKEN_2022 = address(TOKEN_2022_PROGRAM);

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null });
});
afterAll(() => devnet?.close());

interface TokenBalance {
  accountIndex: number;
  owner: string;
  mint: string;
  programId: string;
  uiTokenAmount: { amount: string };
}

async function tokenBalancesOf(signature: string) {
  const tx = await rpc(devnet.url, 'getTransaction', [signature, { encoding: 'json' }]);
  return (tx.result as { meta: { preTokenBalances: TokenBalance[]; postTokenBalances: TokenBalance[] } })
    .meta;
}

describe('Solana devnet Token-2022', () => {
  it('lists USDT and USDT22, each owned by its token program, 6 decimals', async () => {
    expect(Object.keys(devnet.tokens.spl).sort()).toEqual(['USDT', 'USDT22']);
    const mint = await rpc(devnet.url, 'getAccountInfo', [
      devnet.tokens.spl.USDT22,
      { encoding: 'jsonParsed' },
    ]);
    expect(mint.result).toMatchObject({
      value: {
        owner: TOKEN_2022_PROGRAM,
        data: { program: 'spl-token-2022', parsed: { type: 'mint', info: { decimals: 6 } } },
      },
    });
  });

  it('faucetSpl makes a Token-2022 ATA, indexed by program id, with Token-2022 token balances', async () => {
    const usdt22 = address(devnet.tokens.spl.USDT22);
    const owner = await generateKeyPairSigner();
    const sig = await devnet.faucetSpl(usdt22, owner.address, 7_000_000n);
    const ata = await associatedTokenAccount(usdt22, owner.address, TOKEN_2022);
    expect(await tokenAmount(devnet.url, ata)).toBe('7000000');

    const byProgram = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      owner.address,
      { programId: TOKEN_2022_PROGRAM },
      { encoding: 'jsonParsed' },
    ]);
    const value = (byProgram.result as { value: { pubkey: string; account: { data: unknown } }[] }).value;
    expect(value.map((v) => v.pubkey)).toEqual([ata]);
    // The ATA program gives every Token-2022 account the ImmutableOwner extension (170 bytes).
    expect(value[0]?.account.data).toMatchObject({
      program: 'spl-token-2022',
      space: 170,
      parsed: {
        type: 'account',
        info: { mint: usdt22, owner: owner.address, extensions: [{ extension: 'immutableOwner' }] },
      },
    });
    const classic = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      owner.address,
      { programId: TOKEN_PROGRAM_ADDRESS },
    ]);
    expect((classic.result as { value: unknown[] }).value).toEqual([]);
    const byMint = await rpc(devnet.url, 'getTokenAccountsByOwner', [owner.address, { mint: usdt22 }]);
    expect((byMint.result as { value: { pubkey: string }[] }).value.map((v) => v.pubkey)).toEqual([ata]);

    const meta = await tokenBalancesOf(sig);
    expect(meta.preTokenBalances).toEqual([]);
    expect(meta.postTokenBalances).toMatchObject([
      {
        mint: usdt22,
        owner: owner.address,
        programId: TOKEN_2022_PROGRAM,
        uiTokenAmount: { amount: '7000000' },
      },
    ]);
  });

  it('a kit transferChecked under the Token-2022 program id lands', async () => {
    const usdt22 = address(devnet.tokens.spl.USDT22);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    await devnet.faucetSpl(usdt22, alice.address, 5_000_000n);
    const supplyBefore = (await rpc(devnet.url, 'getTokenSupply', [usdt22])).result as {
      value: { amount: string; decimals: number };
    };
    const aliceAta = await associatedTokenAccount(usdt22, alice.address, TOKEN_2022);
    const bobAta = await associatedTokenAccount(usdt22, bob.address, TOKEN_2022);
    const wire = await kitWire(devnet.url, alice, [
      ...(await tokenSendInstructions(alice, bob.address, usdt22, 1_500_000n, TOKEN_2022)),
    ]);
    const sig = await sendWire(devnet.url, wire);
    expect(await tokenAmount(devnet.url, bobAta)).toBe('1500000');
    expect(await tokenAmount(devnet.url, aliceAta)).toBe('3500000');
    const status = await rpc(devnet.url, 'getSignatureStatuses', [[sig]]);
    expect(status.result).toMatchObject({ value: [{ err: null }] });

    const meta = await tokenBalancesOf(sig);
    expect(meta.preTokenBalances.map((b) => [b.owner, b.programId, b.uiTokenAmount.amount])).toEqual([
      [alice.address, TOKEN_2022_PROGRAM, '5000000'],
    ]);
    expect(meta.postTokenBalances.map((b) => [b.owner, b.programId, b.uiTokenAmount.amount]).sort()).toEqual(
      [
        [alice.address, TOKEN_2022_PROGRAM, '3500000'],
        [bob.address, TOKEN_2022_PROGRAM, '1500000'],
      ].sort(),
    );
    // A transfer moves tokens, it does not mint them.
    expect((await rpc(devnet.url, 'getTokenSupply', [usdt22])).result).toMatchObject({
      value: { amount: supplyBefore.value.amount, decimals: 6 },
    });
  });
});

/** Metaplex MetadataV1, as a client reads it: key, update authority, mint, then u32-length strings. */
function decodeMetadata(data: Uint8Array) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 1 + 32 + 32;
  const text = () => {
    const len = view.getUint32(at, true);
    const value = new TextDecoder().decode(data.subarray(at + 4, at + 4 + len)).replace(/\0+$/, '');
    at += 4 + len;
    return value;
  };
  const b58 = (from: number) => getAddressDecoder().decode(data.subarray(from, from + 32));
  return { key: data[0], updateAuthority: b58(1), mint: b58(33), name: text(), symbol: text(), uri: text() };
}

describe('Solana devnet token metadata', () => {
  it('serves the Metaplex metadata account of each demo mint, with its name and symbol', async () => {
    const expected = [
      [devnet.tokens.spl.USDT, 'Tether USD', 'USDT'],
      [devnet.tokens.spl.USDT22, 'Tether USD (Token-2022)', 'USDT22'],
    ] as const;
    for (const [mint, name, symbol] of expected) {
      const pda = await metadataAddress(mint);
      const info = await rpc(devnet.url, 'getAccountInfo', [pda, { encoding: 'base64' }]);
      const value = (info.result as { value: { owner: string; data: [string, string] } }).value;
      expect(value.owner).toBe(METADATA_PROGRAM);
      expect(value.data[1]).toBe('base64');
      const decoded = decodeMetadata(new Uint8Array(Buffer.from(value.data[0], 'base64')));
      expect(decoded).toEqual({
        key: 4,
        updateAuthority: devnet.faucet.address,
        mint,
        name,
        symbol,
        uri: '',
      });
    }
  });
});
