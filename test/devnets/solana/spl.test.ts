import { readFileSync } from 'node:fs';
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { keyPaths, rpc } from './helpers.ts';

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
    const [aliceAta] = await findAssociatedTokenPda({
      mint: usdt,
      owner: alice.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const [bobAta] = await findAssociatedTokenPda({
      mint: usdt,
      owner: bob.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });

    const { value: latest } = await r.getLatestBlockhash().send();
    const msg = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(alice, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getCreateAssociatedTokenIdempotentInstruction({
              payer: alice,
              ata: bobAta,
              owner: bob.address,
              mint: usdt,
            }),
            getTransferCheckedInstruction({
              source: aliceAta,
              mint: usdt,
              destination: bobAta,
              authority: alice,
              amount: 1_250_000n,
              decimals: 6,
            }),
          ],
          m,
        ),
    );
    const wire = getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
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
