import { readFileSync } from 'node:fs';
import { address, createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { kitWire } from '../../helpers/solana-wire.ts';
import { associatedTokenAccount, keyPaths, lamports, rpc, tokenSendInstructions } from './helpers.ts';

const vectors = JSON.parse(
  readFileSync(new URL('../../vectors/solana_rpc_responses.json', import.meta.url), 'utf8'),
);

let devnet: SolanaDevnet;
beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotIntervalMs: null });
});
afterAll(() => devnet?.close());

describe('Solana devnet SPL tokens', () => {
  it('creates the receiver ATA, transferChecked USDT, indexes token accounts and token balances', async () => {
    const r = createSolanaRpc(devnet.url);
    const usdt = address(devnet.tokens.spl.USDT);
    const alice = await generateKeyPairSigner();
    const bob = await generateKeyPairSigner();
    await devnet.airdrop(alice.address, 1_000_000_000n);
    await devnet.faucetSpl(usdt, alice.address, 5_000_000n);
    const bobAta = await associatedTokenAccount(usdt, bob.address);

    const wire = await kitWire(
      devnet.url,
      alice,
      await tokenSendInstructions(alice, bob.address, usdt, 1_250_000n),
    );
    const sig = await r.sendTransaction(wire, { encoding: 'base64' }).send();

    const owned = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      bob.address,
      { mint: usdt },
      { encoding: 'jsonParsed' },
    ]);
    const value = (
      owned.result as {
        value: {
          pubkey: string;
          account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } };
        }[];
      }
    ).value;
    expect(value).toHaveLength(1);
    expect(value[0]?.pubkey).toBe(bobAta);
    expect(value[0]?.account.data.parsed.info.tokenAmount.amount).toBe('1250000');
    expect(keyPaths(owned.result)).toEqual(keyPaths(vectors.getTokenAccountsByOwner.response.result));
    const byProgram = await rpc(devnet.url, 'getTokenAccountsByOwner', [
      alice.address,
      { programId: TOKEN_PROGRAM_ADDRESS },
      { encoding: 'jsonParsed' },
    ]);
    expect((byProgram.result as { value: unknown[] }).value).toHaveLength(1);
    // rentEpoch is u64::MAX written as an exact integer.
    const raw = await (
      await fetch(devnet.url, {
        method: 'POST',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getAccountInfo',
          params: [bobAta, { encoding: 'jsonParsed' }],
        }),
      })
    ).text();
    expect(raw).toContain('"rentEpoch":18446744073709551615');

    const tx = await rpc(devnet.url, 'getTransaction', [sig, { encoding: 'json' }]);
    const meta = (
      tx.result as {
        meta: {
          preTokenBalances: unknown[];
          postTokenBalances: { owner: string; uiTokenAmount: { amount: string } }[];
        };
      }
    ).meta;
    expect(meta.preTokenBalances).toHaveLength(1);
    expect(meta.postTokenBalances.map((b) => [b.owner, b.uiTokenAmount.amount]).sort()).toEqual(
      [
        [alice.address, '3750000'],
        [bob.address, '1250000'],
      ].sort(),
    );
    expect((await rpc(devnet.url, 'getTokenAccountBalance', [bobAta])).result).toMatchObject({
      value: { amount: '1250000', decimals: 6, uiAmount: 1.25, uiAmountString: '1.25' },
    });
    expect((await rpc(devnet.url, 'getTokenSupply', [usdt])).result).toMatchObject({
      value: { amount: '5000000' },
    });
  });
});

describe('Solana devnet faucet', () => {
  it('lands two identical requests made within one slot (they would sign the same transaction)', async () => {
    // Slots an hour long, as the sandbox's 400 ms are to a client: both requests meet one blockhash.
    const slow = await startSolanaDevnet({ slotIntervalMs: 3_600_000 });
    try {
      const alice = await generateKeyPairSigner();
      const sols = await Promise.all([
        slow.airdrop(alice.address, 1_000_000_000n),
        slow.airdrop(alice.address, 1_000_000_000n),
      ]);
      expect(new Set(sols).size).toBe(2);
      expect(await lamports(slow.url, alice.address)).toBe(2_000_000_000n);
      const usdt = slow.tokens.spl.USDT;
      const mints = await Promise.all([
        slow.faucetSpl(usdt, alice.address, 5_000_000n),
        slow.faucetSpl(usdt, alice.address, 5_000_000n),
      ]);
      expect(new Set(mints).size).toBe(2);
    } finally {
      await slow.close();
    }
  });
});
