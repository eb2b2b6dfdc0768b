import { describe, expect, it } from 'vitest';
import { toBase58Address } from '../../../src/chains/tron/address.ts';
import { TronInputError } from '../../../src/chains/tron/errors.ts';
import { recoverSigner, signTronTransaction, txidOf } from '../../../src/chains/tron/signing.ts';
import type { TronTransaction } from '../../../src/chains/tron/types.ts';
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

type Vector = {
  name: string;
  raw_data_hex: string;
  txID: string;
  raw_data?: unknown;
  signature?: string[];
  owner_base58?: string;
  signer_hex?: string;
  signer_base58?: string;
  private_key?: string;
  recovered_signers_base58?: string[];
};

const signed = vectors.signed as Vector[];
const all = [...(vectors.unsigned_node_built as Vector[]), ...signed];
const byName = (prefix: string) => signed.find((v) => v.name.startsWith(prefix))!;

describe('txID', () => {
  it.each(all.map((v) => [v.name, v] as const))('%s: txID = sha256(raw_data_hex)', (_n, v) => {
    expect(txidOf(v.raw_data_hex)).toBe(v.txID);
  });
});

describe('signature recovery', () => {
  const ownerSigned = signed.filter((v) => v.name.startsWith('REAL mainnet'));
  it.each(ownerSigned.map((v) => [v.name, v] as const))(
    '%s: signature over txID recovers the owner',
    (_n, v) => {
      expect(recoverSigner(v.txID, v.signature![0]!)).toBe(v.owner_base58);
    },
  );

  it('reads v as 0/1 (wallet-core) and 0x-prefixed signatures (BitGo)', () => {
    const walletCore = byName('wallet-core');
    expect(walletCore.signature![0]!.slice(128)).toBe('00');
    expect(recoverSigner(walletCore.txID, walletCore.signature![0]!)).toBe(walletCore.signer_base58);
    const bitgo = byName('BitGo AccountPermissionUpdate');
    expect(bitgo.signature![0]!.startsWith('0x')).toBe(true);
    expect(recoverSigner(bitgo.txID, bitgo.signature![0]!)).toBe(toBase58Address(bitgo.signer_hex!));
  });

  it('multisig vector: both signatures recover the listed signers', () => {
    const multisig = byName('docs getsignweight');
    const recovered = multisig.signature!.map((s) => recoverSigner(multisig.txID, s));
    expect(recovered).toEqual(multisig.recovered_signers_base58);
  });

  it('negative vector: the BitGo mock is signed by the recipient, not the owner', () => {
    const wrong = byName('NEGATIVE');
    const signer = recoverSigner(wrong.txID, wrong.signature![0]!);
    expect(signer).toBe(wrong.signer_base58);
    expect(signer).not.toBe(wrong.owner_base58);
  });
});

describe('signTronTransaction', () => {
  const vector = byName('wallet-core');
  const unsigned: TronTransaction = {
    txID: vector.txID,
    raw_data: vector.raw_data as TronTransaction['raw_data'],
    raw_data_hex: vector.raw_data_hex,
    visible: false,
  };

  it('reproduces the deterministic RFC 6979 signature of the wallet-core vector (v as 27/28)', async () => {
    const tx = await signTronTransaction(unsigned, vector.private_key!);
    expect(tx.signature).toHaveLength(1);
    const [signature] = tx.signature;
    // Same r and s; tronweb writes v as recovery id + 27, which java-tron accepts.
    expect(signature!.slice(0, 128)).toBe(vector.signature![0]!.slice(0, 128));
    expect(signature!.slice(128)).toBe('1b');
    expect(recoverSigner(tx.txID, signature!)).toBe(vector.signer_base58);
  });

  it('is pure: the input keeps no signature and a second signature is appended to a copy', async () => {
    const once = await signTronTransaction(unsigned, vector.private_key!);
    expect(unsigned.signature).toBeUndefined();
    const other = '0000000000000000000000000000000000000000000000000000000000000001';
    const twice = await signTronTransaction(once, other);
    expect(once.signature).toHaveLength(1);
    expect(twice.signature).toHaveLength(2);
    expect(recoverSigner(twice.txID, twice.signature[1]!)).toBe('TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC');
  });

  it('signs a txID only when raw_data, raw_data_hex and txID agree', async () => {
    const key = vector.private_key!;
    const tampered = structuredClone(unsigned);
    (tampered.raw_data.contract[0]!.parameter.value as Record<string, unknown>)['amount'] = 5;
    await expect(signTronTransaction(tampered, key)).rejects.toThrow(/raw_data does not match/);
    await expect(signTronTransaction({ ...unsigned, txID: 'ab'.repeat(32) }, key)).rejects.toThrow(
      /not the sha256/,
    );
    await expect(signTronTransaction({ ...unsigned, raw_data_hex: '' }, key)).rejects.toThrow(TronInputError);
  });

  it('refuses a bad key without echoing it', async () => {
    const bad = `${vector.private_key!.slice(0, 63)}z`;
    await expect(signTronTransaction(unsigned, bad)).rejects.toThrow(TronInputError);
    try {
      await signTronTransaction(unsigned, bad);
    } catch (error) {
      expect((error as Error).message).not.toContain(bad);
      expect((error as Error).message).not.toContain(vector.private_key!.slice(0, 20));
    }
  });
});
