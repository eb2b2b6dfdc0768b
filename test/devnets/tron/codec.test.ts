import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import {
  addressFromPrivateKey,
  hexAddressToBase58,
  parseAddress,
  tronHexToEvm,
} from '../../../devnets/tron/address.ts';
import { blockIdOf, encodeHeaderRaw } from '../../../devnets/tron/block.ts';
import { parseJson, stringifyJson } from '../../../devnets/tron/json.ts';
import { recoverSigner, SignatureError, signHash } from '../../../devnets/tron/signature.ts';
import {
  decodeRaw,
  decodeTransaction,
  encodeRaw,
  encodeTransaction,
  txIdOf,
} from '../../../devnets/tron/transaction.ts';
import { parseTransactionJson, printTransaction } from '../../../devnets/tron/transaction-json.ts';
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

type Signed = (typeof vectors.signed)[number];

describe('Transaction.raw protobuf codec against real vectors', () => {
  const withJson = [...vectors.unsigned_node_built, ...vectors.signed].filter(
    (v): v is typeof v & { raw_data: unknown } => 'raw_data' in v && v.raw_data !== undefined,
  );

  it.each(withJson.map((v) => [v.name, v] as const))(
    '%s: raw_data JSON -> raw_data_hex and txID',
    (_n, v) => {
      const tx = parseTransactionJson(parseJson(JSON.stringify({ raw_data: v.raw_data })), false);
      expect(bytesToHex(encodeRaw(tx.raw))).toBe(v.raw_data_hex);
      expect(txIdOf(tx.raw)).toBe(v.txID);
    },
  );

  const all = [...vectors.unsigned_node_built, ...vectors.signed].filter((v) => 'raw_data_hex' in v);
  it.each(all.map((v) => [v.name, v] as const))('%s: decode -> re-encode is byte-exact', (_n, v) => {
    const raw = decodeRaw(hexToBytes(v.raw_data_hex as string));
    expect(bytesToHex(encodeRaw(raw))).toBe(v.raw_data_hex);
    expect(txIdOf(raw)).toBe(v.txID);
  });

  it('prints the createtransaction vector exactly as the Nile node did', () => {
    const v = vectors.unsigned_node_built[0]!;
    const raw = decodeRaw(hexToBytes(v.raw_data_hex));
    const json = printTransaction({ raw, signatures: [], ret: [] }, false, { visibleKey: true });
    expect(JSON.parse(stringifyJson(json))).toEqual({
      visible: false,
      txID: v.txID,
      raw_data: v.raw_data,
      raw_data_hex: v.raw_data_hex,
    });
  });

  it('prints addresses as base58 and asset names as text when visible=true, and reads them back', () => {
    const v = vectors.signed[0]!;
    const raw = decodeRaw(hexToBytes(v.raw_data_hex!));
    const json = printTransaction({ raw, signatures: [], ret: [] }, true);
    const value = (
      JSON.parse(stringifyJson(json))['raw_data'] as {
        contract: { parameter: { value: Record<string, unknown> } }[];
      }
    ).contract[0]!.parameter.value;
    expect(value).toEqual({
      asset_name: '1000959',
      owner_address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
      to_address: hexAddressToBase58('41521ea197907927725ef36d70f25f850d1659c7c7'),
      amount: 4,
    });
    const back = parseTransactionJson(parseJson(stringifyJson(json)), true);
    expect(txIdOf(back.raw)).toBe(v.txID);
  });

  it('decodes the full signed broadcasthex protobuf (raw + signature)', () => {
    const v = vectors.signed.find((s) => 'transaction_pb_hex' in s) as Signed & {
      transaction_pb_hex: string;
    };
    const tx = decodeTransaction(hexToBytes(v.transaction_pb_hex));
    expect(bytesToHex(encodeRaw(tx.raw))).toBe(v.raw_data_hex);
    expect(tx.signatures.map((s) => bytesToHex(s))).toEqual(v.signature);
    expect(bytesToHex(encodeTransaction(tx))).toBe(v.transaction_pb_hex);
  });
});

describe('signatures', () => {
  it.each(
    vectors.signed
      .filter((v) => 'signer_hex' in v && !v.name.startsWith('NEGATIVE'))
      .map((v) => [v.name, v] as const),
  )('%s: ecrecover gives the signer', (_n, v) => {
    const sig = hexToBytes((v.signature![0] as string).replace(/^0x/, ''));
    expect(recoverSigner(hexToBytes(v.txID), sig)).toBe(v.signer_hex);
  });

  it('recovers both co-signers of the multisig vector', () => {
    const v = vectors.signed.find((s) => 'recovered_signers_hex' in s)!;
    const signers = v.signature!.map((s) => recoverSigner(hexToBytes(v.txID), hexToBytes(s)));
    expect(signers).toEqual(v.recovered_signers_hex);
  });

  it('the negative vector recovers to the recipient, not the owner', () => {
    const v = vectors.signed.find((s) => s.name.startsWith('NEGATIVE'))!;
    const signer = recoverSigner(hexToBytes(v.txID), hexToBytes(v.signature![0]!));
    expect(signer).toBe(v.signer_hex);
    expect(signer).not.toBe(v.owner_hex);
  });

  it('signs deterministically (RFC 6979) exactly like wallet-core, and accepts v=27/28', () => {
    const v = vectors.signed[0]!;
    const sig = signHash(hexToBytes(v.txID), hexToBytes(v.private_key!));
    expect(bytesToHex(sig)).toBe(v.signature![0]);
    const tronweb = Uint8Array.from(sig);
    tronweb[64] = (tronweb[64] as number) + 27;
    expect(recoverSigner(hexToBytes(v.txID), tronweb)).toBe(v.signer_hex);
  });

  it('rejects short signatures and bad headers with java-tron texts', () => {
    expect(() => recoverSigner(new Uint8Array(32), new Uint8Array(64))).toThrow(
      new SignatureError('Signature size is 64'),
    );
    const bad = new Uint8Array(65);
    bad[64] = 40;
    expect(() => recoverSigner(new Uint8Array(32), bad)).toThrow('Header byte out of range: 40');
  });
});

describe('addresses', () => {
  it.each(vectors.addresses.map((a) => [a.address_base58, a] as const))('%s', (_n, a) => {
    expect(addressFromPrivateKey(hexToBytes(a.private_key))).toBe(a.address_hex);
    expect(hexAddressToBase58(a.address_hex)).toBe(a.address_base58);
    expect(parseAddress(a.address_base58)).toBe(a.address_hex);
    expect(`0x${bytesToHex(tronHexToEvm(a.address_hex))}`).toBe(a.evm_equivalent.toLowerCase());
  });

  it('rejects a base58 address with a broken checksum', () => {
    const good = vectors.addresses[0]!.address_base58;
    const broken = `${good.slice(0, -1)}${good.endsWith('C') ? 'D' : 'C'}`;
    expect(parseAddress(broken)).toBeNull();
  });
});

describe('block id', () => {
  it('reproduces the wallet-core header, blockID and TaPoS bytes', () => {
    const b = vectors.block_id;
    const raw = {
      timestamp: BigInt(b.block_header_raw.timestamp),
      txTrieRoot: hexToBytes(b.block_header_raw.txTrieRoot),
      parentHash: hexToBytes(b.block_header_raw.parentHash),
      number: BigInt(b.block_header_raw.number),
      witnessAddress: b.block_header_raw.witness_address,
      version: b.block_header_raw.version,
    };
    expect(bytesToHex(encodeHeaderRaw(raw))).toBe(b.block_header_raw_hex);
    const id = blockIdOf(raw);
    expect(id).toBe(b.blockID);
    expect(id.slice(12, 16)).toBe(b.ref_block_bytes);
    expect(id.slice(16, 32)).toBe(b.ref_block_hash);
  });
});
