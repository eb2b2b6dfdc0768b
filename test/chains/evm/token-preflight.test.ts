import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import { type EvmAdapter, EvmRevertError, EvmTokenTransferError } from '../../../src/chains/evm/index.ts';
import { transactionOutcome } from '../../../src/chains/evm/outcome.ts';
import { devnetAdapter } from './helpers.ts';

/**
 * Contracts that are not what a token send expects, as raw bytecode (init code copying the runtime):
 * - REVERTS_TRANSFER: reverts `transfer` without a reason, answers every other call with 32 zero bytes
 *   (decimals 0, balance 0);
 * - REVERTS_BUT_OWNER_OF: reverts every call without a reason except `ownerOf`, which names 0x…ab;
 * - ALWAYS_FALSE: answers every call with 32 zero bytes, so `transfer` returns false.
 */
const REVERTS_TRANSFER = '0x601a80600b6000396000f360003560e01c63a9059cbb1460145760206000f35b60006000fd';
const REVERTS_BUT_OWNER_OF =
  '0x601f80600b6000396000f360003560e01c636352211e1460145760006000fd5b60ab60005260206000f3';
const ALWAYS_FALSE = '0x600580600b6000396000f360206000f3';

const TOKEN_ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);
const ETHER = 10n ** 18n;

let devnet: EvmDevnet;
let adapter: EvmAdapter;
const contracts = { revertsTransfer: '', revertsButOwnerOf: '', alwaysFalse: '' };

const noCode = () => privateKeyToAccount(generatePrivateKey()).address;

async function mined(hash: Hex) {
  for (let i = 0; i < 200; i++) {
    const receipt = await adapter.getReceipt(hash);
    if (receipt) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${hash} not mined`);
}

async function deploy(code: string): Promise<string> {
  const from = devnet.accounts[0]!.address;
  const receipt = await mined(await devnet.rpc<Hex>('eth_sendTransaction', [{ from, data: code }]));
  return String(receipt['contractAddress']);
}

async function refusal(build: Promise<unknown>): Promise<Error> {
  const error = await build.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('the build was not refused');
  return error;
}

beforeAll(async () => {
  devnet = await startEvmDevnet({ chain: 'ethereum' });
  adapter = devnetAdapter('ethereum', devnet.url);
  contracts.revertsTransfer = await deploy(REVERTS_TRANSFER);
  contracts.revertsButOwnerOf = await deploy(REVERTS_BUT_OWNER_OF);
  contracts.alwaysFalse = await deploy(ALWAYS_FALSE);
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

describe('token transfers refused before signing (real anvil)', () => {
  const sender = () => devnet.accounts[1]!.address;

  it('refuses both standards on an address without code, gas given or not', async () => {
    for (const gas of [undefined, 100_000n]) {
      const overrides = gas === undefined ? {} : { gas };
      for (const build of [
        () => adapter.buildErc20Transfer(sender(), noCode(), noCode(), 1n, overrides),
        () => adapter.buildErc721Transfer(sender(), noCode(), noCode(), 1n, overrides),
      ]) {
        const error = await refusal(build());
        expect(error).toBeInstanceOf(EvmTokenTransferError);
        expect(error.message).toMatch(/^not a token contract: 0x[0-9a-fA-F]{40} has no code$/);
        expect((error as EvmTokenTransferError).status).toBe(422);
      }
    }
  });

  it('keeps the revert reason of the simulated call, even with gas given (no estimate runs)', async () => {
    const nft = devnet.tokens.erc721.NFT;
    const tokenId = await devnet.faucetErc721(nft, devnet.accounts[2]!.address);
    const error = await refusal(
      adapter.buildErc721Transfer(sender(), noCode(), nft, tokenId, { gas: 200_000n }),
    );
    expect(error).toBeInstanceOf(EvmRevertError);
    expect((error as EvmRevertError).reason).toBe('ERC721: transfer from incorrect owner');
  });

  it('says why a revert without a reason failed: balance, ownership, or that it would revert', async () => {
    const erc20 = await refusal(
      adapter.buildErc20Transfer(sender(), noCode(), contracts.revertsTransfer, 5n, { gas: 100_000n }),
    );
    expect(erc20).toBeInstanceOf(EvmTokenTransferError);
    expect(erc20.message).toBe('insufficient token balance');
    const erc721 = await refusal(
      adapter.buildErc721Transfer(sender(), noCode(), contracts.revertsButOwnerOf, 7n, { gas: 100_000n }),
    );
    expect(erc721.message).toBe('not the owner of token 7');
    // Nothing answers balanceOf here: no explanation, the refusal still holds.
    const unexplained = await refusal(
      adapter.buildErc20Transfer(sender(), noCode(), contracts.revertsButOwnerOf, 7n, { gas: 100_000n }),
    );
    expect(unexplained.message).toBe('token transfer would revert (no reason given)');
  });

  it('refuses an ERC20 transfer that returns false', async () => {
    const error = await refusal(
      adapter.buildErc20Transfer(sender(), noCode(), contracts.alwaysFalse, 5n, { gas: 100_000n }),
    );
    expect(error).toBeInstanceOf(EvmTokenTransferError);
    expect(error.message).toBe('token transfer returned false');
  });
});

describe('a token call to an address without code, mined', () => {
  it('is FAILED for the outcome and no transfer at all for the webhook watcher', async () => {
    const from = devnet.accounts[3]!.address;
    const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [noCode(), 5n] });
    const hash = await devnet.rpc<Hex>('eth_sendTransaction', [
      { from, to: noCode(), data, gas: `0x${(100_000n).toString(16)}` },
    ]);
    const receipt = await mined(hash);
    expect(receipt['status']).toBe('0x1');
    expect(transactionOutcome(await adapter.getTransaction(hash), receipt)).toEqual({
      status: 'FAILED',
      reason: expect.stringMatching(/^no Transfer event from 0x[0-9a-f]{40}/),
    });
    const block = await adapter.follower.read(BigInt(String(receipt['blockNumber'])));
    expect(block.kind === 'block' && block.block.transfers.filter((t) => t.txid === hash)).toEqual([]);
    // With coin attached, the coin did move: that part is a native transfer, and only that.
    const paid = await devnet.rpc<Hex>('eth_sendTransaction', [
      { from, to: noCode(), data, value: `0x${ETHER.toString(16)}`, gas: `0x${(100_000n).toString(16)}` },
    ]);
    const paidReceipt = await mined(paid);
    const paidBlock = await adapter.follower.read(BigInt(String(paidReceipt['blockNumber'])));
    expect(
      paidBlock.kind === 'block' && paidBlock.block.transfers.filter((t) => t.txid === paid),
    ).toMatchObject([{ type: 'ETH', contractAddress: null, amountRaw: ETHER }]);
  });
});
