import { type Hex, hexToBigInt, keccak256, parseTransaction, serializeTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  checksumAddress,
  classifyRpcError,
  decodeRevertReason,
  decodeTransaction,
  EvmInputError,
  EvmInsufficientFundsError,
  EvmNodeError,
  EvmNonceError,
  EvmRevertError,
  evmKeyFromPrivate,
  feeCap,
  generateEvmKey,
  isEvmAddress,
  JsonRpcError,
  readFeeHistory,
  recoverSender,
  signEvmTransaction,
  transactionHash,
  translateNodeError,
  unsignedTransaction,
  withTransactionNonce,
} from '../../../src/chains/evm/index.ts';
import { evmAddressFieldMessage, evmAddressProblem } from '../../../src/chains/evm/keys.ts';
import vectors from '../../vectors/evm_vectors.json' with { type: 'json' };

interface TxVector {
  raw: Hex;
  hash: Hex;
  from: Hex;
  private_key: string;
  signing_hash: string;
  rpc_object: Record<string, string>;
}

const [eip155, mainnet1559, ethereumjs1559] = vectors.txs as unknown as [TxVector, TxVector, TxVector];

describe('EVM keys and addresses (vectors)', () => {
  it.each(vectors.addresses)('derives $address from its key', ({ private_key, address }) => {
    const pair = evmKeyFromPrivate(private_key);
    expect(pair.address).toBe(address);
    expect(pair.privateKey).toBe(private_key.slice(2));
    expect(pair.publicKey).toMatch(/^0x04[0-9a-f]{128}$/);
    // Without 0x too.
    expect(evmKeyFromPrivate(private_key.slice(2)).address).toBe(address);
  });

  it('accepts addresses in any case and checksums them (EIP-55)', () => {
    const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    for (const form of [
      address,
      address.toLowerCase(),
      `0x${address.slice(2).toUpperCase()}`,
      address.slice(2),
    ]) {
      expect(isEvmAddress(form)).toBe(true);
      expect(checksumAddress(form)).toBe(address);
    }
    for (const bad of [
      '',
      '0x',
      `${address}00`,
      address.slice(0, 41),
      'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
      `0x${'g'.repeat(40)}`,
    ]) {
      expect(isEvmAddress(bad)).toBe(false);
      expect(() => checksumAddress(bad)).toThrow(EvmInputError);
    }
  });

  it('refuses a mixed-case address whose EIP-55 checksum is wrong: a typo', () => {
    const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    // One letter's case flipped, and one digit changed under the original checksum.
    for (const typo of [
      '0xf39fd6e51aad88F6F4ce6aB8827279cffFb92266',
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267',
    ]) {
      expect(evmAddressProblem(typo)).toBe('checksum');
      expect(isEvmAddress(typo)).toBe(false);
      expect(() => checksumAddress(typo)).toThrow(/invalid EIP-55 checksum/);
      expect(evmAddressFieldMessage('to', typo)).toBe(
        'The to field has an invalid EIP-55 checksum (a typo?).',
      );
    }
    // No checksum to check: all lower or all upper case, digits only.
    for (const plain of [
      address.toLowerCase(),
      `0x${address.slice(2).toUpperCase()}`,
      `0x${'1'.repeat(40)}`,
    ]) {
      expect(evmAddressProblem(plain)).toBeNull();
      expect(evmAddressFieldMessage('to', plain)).toBeNull();
    }
    // A format error never repeats the input (it may be a key pasted into the wrong field).
    const key = `0x${'ab'.repeat(32)}`;
    expect(evmAddressProblem(key)).toBe('format');
    expect(evmAddressFieldMessage('to', key)).not.toContain('abab');
    expect(evmAddressProblem(42)).toBe('format');
  });

  it('generates distinct valid keys', () => {
    const a = generateEvmKey();
    const b = generateEvmKey();
    expect(a.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(a.privateKey).not.toBe(b.privateKey);
    expect(evmKeyFromPrivate(a.privateKey).address).toBe(a.address);
  });

  it('refuses malformed or out-of-range keys without echoing them', () => {
    const n = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
    for (const bad of ['', '00'.repeat(32), n, 'zz'.repeat(32), '11'.repeat(31)]) {
      try {
        evmKeyFromPrivate(bad);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(EvmInputError);
        if (bad.length > 4) expect((error as Error).message).not.toContain(bad);
      }
    }
  });
});

describe('EVM transactions (vectors)', () => {
  it('rebuilds and signs the EIP-155 example to the exact raw bytes', async () => {
    const fields = {
      chainId: 1,
      from: eip155.from as Hex,
      nonce: 9,
      to: '0x3535353535353535353535353535353535353535' as Hex,
      value: 10n ** 18n,
      data: '0x' as Hex,
      gas: 21_000n,
      type: 'legacy' as const,
      gasPrice: 20_000_000_000n,
    };
    const unsigned = await unsignedTransaction(fields);
    expect(keccak256(unsigned.serialized)).toBe(`0x${eip155.signing_hash.replace(/^0x/, '')}`);
    const signed = await signEvmTransaction(unsigned, eip155.private_key);
    expect(signed.raw).toBe(eip155.raw);
    expect(signed.hash).toBe(eip155.hash);
    expect(transactionHash(eip155.raw as Hex)).toBe(eip155.hash);
    expect(await recoverSender(eip155.raw as Hex)).toBe(eip155.from);
  });

  it('rebuilds the real mainnet type-2 transaction from its RPC object, hashes it and recovers the sender', async () => {
    const rpc = mainnet1559.rpc_object;
    const raw = serializeTransaction(
      {
        type: 'eip1559',
        chainId: Number(rpc.chainId),
        nonce: Number(rpc.nonce),
        maxPriorityFeePerGas: hexToBigInt(rpc.maxPriorityFeePerGas as Hex),
        maxFeePerGas: hexToBigInt(rpc.maxFeePerGas as Hex),
        gas: hexToBigInt(rpc.gas as Hex),
        to: rpc.to as Hex,
        value: hexToBigInt(rpc.value as Hex),
        data: rpc.input as Hex,
        accessList: [],
      },
      { r: rpc.r as Hex, s: rpc.s as Hex, yParity: Number(rpc.v) },
    );
    expect(raw).toBe(mainnet1559.raw);
    expect(transactionHash(raw)).toBe(mainnet1559.hash);
    expect(await recoverSender(raw)).toBe(mainnet1559.from);
    const decoded = await decodeTransaction(raw);
    expect(decoded.type).toBe('eip1559');
    expect(decoded.value).toBe(hexToBigInt(rpc.value as Hex));
  });

  it('recovers the ethereumjs 1559 vector signer, which is its key', async () => {
    expect(transactionHash(ethereumjs1559.raw as Hex)).toBe(ethereumjs1559.hash);
    expect(await recoverSender(ethereumjs1559.raw as Hex)).toBe(ethereumjs1559.from);
    expect(evmKeyFromPrivate(ethereumjs1559.private_key).address).toBe(ethereumjs1559.from);
  });

  it('re-signs the ethereumjs 1559 vector from its decoded fields to the same bytes', async () => {
    const parsed = parseTransaction(ethereumjs1559.raw as Hex);
    const unsigned = await unsignedTransaction({
      chainId: parsed.chainId!,
      from: ethereumjs1559.from as Hex,
      nonce: parsed.nonce!,
      to: parsed.to!,
      value: parsed.value ?? 0n,
      data: parsed.data ?? '0x',
      gas: parsed.gas!,
      type: 'eip1559',
      maxFeePerGas: parsed.maxFeePerGas!,
      maxPriorityFeePerGas: parsed.maxPriorityFeePerGas!,
    });
    const signed = await signEvmTransaction(unsigned, ethereumjs1559.private_key);
    // RFC 6979 signatures are deterministic: the same key and payload give the same bytes.
    expect(signed.raw).toBe(ethereumjs1559.raw);
  });

  /** A legacy transfer of 1 wei from the EIP-155 vector's sender to itself, on chain `chainId`. */
  const legacySelfTransfer = (chainId: number) =>
    unsignedTransaction({
      chainId,
      from: eip155.from as Hex,
      nonce: 0,
      to: eip155.from as Hex,
      value: 1n,
      data: '0x',
      gas: 21_000n,
      type: 'legacy',
      gasPrice: 1n,
    });

  it('refuses to sign with a key that is not the sender', async () => {
    const tx = await legacySelfTransfer(1);
    const other = vectors.addresses[0]!.private_key;
    await expect(signEvmTransaction(tx, other)).rejects.toThrow(/does not belong to/);
    await expect(signEvmTransaction(tx, other)).rejects.not.toThrow(other.slice(2));
  });

  it('re-serializes with another nonce', async () => {
    const tx = await legacySelfTransfer(56);
    const moved = await withTransactionNonce(tx, 7);
    expect(moved.nonce).toBe(7);
    expect((await decodeTransaction(moved.serialized)).nonce).toBe(7);
    expect((await decodeTransaction(moved.serialized)).chainId).toBe(56);
    await expect(withTransactionNonce(tx, -1)).rejects.toThrow(EvmInputError);
  });
});

describe('EVM node error translation', () => {
  const rpcError = (code: number, message: string, data?: unknown) =>
    new JsonRpcError('eth_sendRawTransaction', code, message, data);

  it("keeps geth's insufficient funds message as is", async () => {
    const message =
      'insufficient funds for gas * price + value: address 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf have 0 want 21000000000000';
    const error = await translateNodeError(rpcError(-32000, message));
    expect(error).toBeInstanceOf(EvmInsufficientFundsError);
    expect((error as EvmInsufficientFundsError).message).toBe(message);
    expect((error as EvmInsufficientFundsError).status).toBe(422);
  });

  it.each([
    ['nonce too low: next nonce 5, tx nonce 3', 'too_low'],
    ['nonce too low', 'too_low'],
    ['nonce too high', 'too_high'],
    ['replacement transaction underpriced', 'underpriced'],
  ])('types %s as a nonce error', async (message, kind) => {
    const error = await translateNodeError(rpcError(-32000, message));
    expect(error).toBeInstanceOf(EvmNonceError);
    expect((error as EvmNonceError).kind).toBe(kind);
    expect((error as EvmNonceError).retryable).toBe(kind !== 'too_high');
  });

  it.each(['already known', 'transaction already imported', 'AlreadyKnown', 'ALREADY_EXISTS: already known'])(
    'recognizes "%s" as already known',
    (message) => {
      expect(classifyRpcError(rpcError(-32000, message))).toBe('already_known');
    },
  );

  it('decodes Error(string), Panic(uint256) and OpenZeppelin custom errors', async () => {
    const errorString =
      '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000002645524332303a207472616e7366657220616d6f756e7420657863656564732062616c616e63650000000000000000000000000000000000000000000000000000';
    expect(await decodeRevertReason(errorString)).toBe('ERC20: transfer amount exceeds balance');
    const panic = `0x4e487b71${'11'.padStart(64, '0')}` as Hex;
    expect(await decodeRevertReason(panic)).toBe('panic 0x11 (arithmetic overflow or underflow)');
    // ERC20InsufficientBalance(address,uint256,uint256) = 0xe450d38c
    const custom =
      `0xe450d38c${'7e5f4552091a69125d5dfcb7b8c2659029395bdf'.padStart(64, '0')}${'0'.padStart(64, '0')}${'64'.padStart(64, '0')}` as Hex;
    expect(await decodeRevertReason(custom)).toBe(
      'ERC20InsufficientBalance(0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf, 0, 100)',
    );
    expect(await decodeRevertReason('0xdeadbeef')).toBe('custom error 0xdeadbeef');
    expect(await decodeRevertReason('0x')).toBeNull();

    const reverted = await translateNodeError(
      rpcError(3, 'execution reverted: ERC20: transfer amount exceeds balance', errorString),
    );
    expect(reverted).toBeInstanceOf(EvmRevertError);
    expect((reverted as EvmRevertError).reason).toBe('ERC20: transfer amount exceeds balance');
    // Data nested the way some providers wrap it, and no data at all.
    const nested = await translateNodeError(rpcError(-32603, 'execution reverted', { data: errorString }));
    expect((nested as EvmRevertError).reason).toBe('ERC20: transfer amount exceeds balance');
    const bare = await translateNodeError(
      rpcError(-32000, 'execution reverted: Ownable: caller is not the owner'),
    );
    expect((bare as EvmRevertError).reason).toBe('Ownable: caller is not the owner');
  });

  it('leaves other node errors typed but untouched, and non-node errors alone', async () => {
    const other = await translateNodeError(rpcError(-32000, 'intrinsic gas too low'));
    expect(other).toBeInstanceOf(EvmNodeError);
    expect((other as EvmNodeError).message).toBe('intrinsic gas too low');
    const plain = new Error('socket hang up');
    expect(await translateNodeError(plain)).toBe(plain);
  });
});

describe('EVM fee history', () => {
  it('takes the next base fee and the median tip of blocks that had transactions', () => {
    const { baseFeePerGas, tip } = readFeeHistory({
      baseFeePerGas: ['0x3b9aca00', '0x3b9aca00', '0x4a817c80', '0x77359400'],
      gasUsedRatio: [0.5, 0, 0.9],
      reward: [['0x5'], ['0x0'], ['0x9']],
    });
    expect(baseFeePerGas).toBe(2_000_000_000n);
    expect(tip).toBe(9n);
    expect(
      readFeeHistory({ baseFeePerGas: ['0x1', '0x2'], gasUsedRatio: [0], reward: [['0x0']] }).tip,
    ).toBeNull();
    expect(feeCap(10n, 3n)).toBe(23n);
  });
});
