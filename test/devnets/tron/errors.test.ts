// Rejections and failures with java-tron's exact codes and texts (Wallet.broadcastTransaction,
// TransactionCapsule, the actuators), checked against the captured bodies in the vectors.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { hexAddressToBase58, parseAddress } from '../../../devnets/tron/address.ts';
import type { TronDevnet } from '../../../devnets/tron/index.ts';
import { parseJson } from '../../../devnets/tron/json.ts';
import { validateSignature } from '../../../devnets/tron/processor.ts';
import { SignatureError, signHash } from '../../../devnets/tron/signature.ts';
import { decodeRaw, encodeTransaction, type TxRaw, txIdOf } from '../../../devnets/tron/transaction.ts';
import { parseTransactionJson, printTransaction } from '../../../devnets/tron/transaction-json.ts';
import responses from '../../vectors/tron_http_responses.json' with { type: 'json' };
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };
import { buildTrc20Transfer, fromHex, post, useTronDevnet, utf8Hex } from './helpers.ts';

type Broadcast = { result?: boolean; code?: string; message?: string; txid: string };

let devnet: TronDevnet;
let tw: TronWeb;

useTronDevnet(2, (started, web) => {
  devnet = started;
  tw = web;
});

/** Broadcasts as-is: TronWeb's transactions say visible=false, so messages come back hex(utf8). */
const broadcast = (tx: unknown) => post<Broadcast>(devnet.url, '/wallet/broadcasttransaction', tx);
const rejected = (code: string, text: string, txid: string) => ({ code, message: utf8Hex(text), txid });

/** Re-signs an edited raw_data with our own encoder (TronWeb would refuse to sign a tampered one). */
function signRaw(raw: TxRaw, privateKey: string, visible = false) {
  const sig = signHash(hexToBytes(txIdOf(raw)), hexToBytes(privateKey));
  return printTransaction({ raw, signatures: [sig], ret: [] }, visible);
}

async function newFunded(sun: bigint) {
  const acct = await tw.createAccount();
  await devnet.faucetTrx(acct.address.base58, sun);
  return acct;
}

describe('builder endpoints answer {"Error"} with the actuator text', () => {
  const errors = responses.createtransaction.errors;

  it('createtransaction: every captured java-tron error body', async () => {
    const poor = await newFunded(1_000_000n);
    const rich = devnet.faucet.address;
    const stranger = (await tw.createAccount()).address.base58;
    const req = (owner: string, to: string, amount: number) =>
      post(devnet.url, '/wallet/createtransaction', {
        owner_address: owner,
        to_address: to,
        amount,
        visible: true,
      });
    expect(await req(poor.address.base58, rich, 5_000_000)).toEqual(errors.insufficient_balance);
    expect(await req(stranger, rich, 1)).toEqual(errors.no_owner_account);
    expect(await req(rich, rich, 1)).toEqual(errors.to_self);
    expect(await req(rich, poor.address.base58, 0)).toEqual(errors.amount_le_0);
    expect(
      await post(devnet.url, '/wallet/createtransaction', {
        owner_address: '',
        to_address: parseAddress(rich),
        amount: 1,
      }),
    ).toEqual(errors.bad_owner);
  });

  it('freezebalancev2 and delegateresource: the captured Nile error bodies', async () => {
    const a = await newFunded(5_000_000n);
    const freeze = (amount: number) =>
      post(devnet.url, '/wallet/freezebalancev2', {
        owner_address: a.address.base58,
        frozen_balance: amount,
        resource: 'ENERGY',
        visible: true,
      });
    expect(await freeze(999_999)).toEqual(responses.freezebalancev2.errors.lt_1trx);
    expect(await freeze(6_000_000)).toEqual(responses.freezebalancev2.errors.gt_balance);
    expect(
      await post(devnet.url, '/wallet/delegateresource', {
        owner_address: a.address.base58,
        receiver_address: devnet.faucet.address,
        balance: 1_000_000_000,
        resource: 'ENERGY',
        lock: false,
        visible: true,
      }),
    ).toEqual(responses.delegateresource.real_error_response);
  });

  it('unfreeze and undelegate validation texts', async () => {
    const a = await newFunded(5_000_000n);
    expect(
      await post(devnet.url, '/wallet/unfreezebalancev2', {
        owner_address: a.address.base58,
        unfreeze_balance: 1_000_000,
        resource: 'ENERGY',
        visible: true,
      }),
    ).toEqual({
      Error: 'class org.tron.core.exception.ContractValidateException : no frozenBalance(Energy)',
    });
    expect(
      await post(devnet.url, '/wallet/undelegateresource', {
        owner_address: a.address.base58,
        receiver_address: devnet.faucet.address,
        balance: 1_000_000,
        resource: 'ENERGY',
        visible: true,
      }),
    ).toEqual({
      Error: 'class org.tron.core.exception.ContractValidateException : delegated Resource does not exist',
    });
  });
});

describe('broadcasttransaction rejections', () => {
  it('insufficient balance: the captured CONTRACT_VALIDATE_ERROR body, byte for byte', async () => {
    const poor = await newFunded(1_000_000n);
    // TronWeb builds locally without checking the balance; the node's actuator refuses it.
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 5_000_000, poor.address.base58);
    const res = await broadcast(await tw.trx.sign(tx, poor.privateKey));
    const captured = responses.broadcasttransaction.contract_validate_error_balance;
    expect(res).toEqual({ code: captured.code, message: captured.message, txid: tx.txID });
    expect(fromHex(res.message as string)).toBe(
      responses.broadcasttransaction.contract_validate_error_balance_decoded,
    );
  });

  it('unsigned: SIGERROR "miss sig or contract" exactly as captured', async () => {
    const tx = await tw.transactionBuilder.sendTrx(
      (await tw.createAccount()).address.base58,
      1,
      devnet.faucet.address,
    );
    const res = await broadcast(tx);
    expect(res.code).toBe('SIGERROR');
    expect(res.message).toBe(responses.broadcasttransaction.sigerror_captured.message);
    expect(res.result).toBeUndefined();
  });

  it('signed by a key outside the owner permission: SIGERROR naming the recovered signer', async () => {
    const owner = await newFunded(10_000_000n);
    const thief = await tw.createAccount();
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const raw = parseTransactionJson(parseJson(JSON.stringify(tx)), false).raw;
    const signed = signRaw(raw, thief.privateKey);
    const sigHex = (signed['signature'] as string[])[0] as string;
    const expected = `Validate signature error: ${sigHex} is signed by ${thief.address.base58} but it is not contained of permission.`;
    // visible=false: hex(utf8) message; visible=true (base58 JSON): plain text.
    expect(await broadcast(signed)).toEqual({ code: 'SIGERROR', message: utf8Hex(expected), txid: tx.txID });
    expect(await broadcast({ ...signRaw(raw, thief.privateKey, true), visible: true })).toEqual({
      code: 'SIGERROR',
      message: expected,
      txid: tx.txID,
    });
  });

  it('a truncated signature: SIGERROR "Signature size is 64"', async () => {
    const owner = await newFunded(10_000_000n);
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const signed = await tw.trx.sign(tx, owner.privateKey);
    const res = await broadcast({ ...signed, signature: [signed.signature[0]?.slice(0, 128)] });
    expect(res).toEqual(rejected('SIGERROR', 'Validate signature error: Signature size is 64', tx.txID));
  });

  it('expired: TRANSACTION_EXPIRATION_ERROR once the head passes expiration', async () => {
    const owner = await newFunded(10_000_000n);
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const signed = await tw.trx.sign(tx, owner.privateKey);
    await devnet.mine(21); // 63 s of blocks > the 60 s expiration window
    expect(await broadcast(signed)).toEqual(
      rejected('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', tx.txID),
    );
  });

  it('TaPoS: a ref_block_hash that is not the block at ref_block_bytes', async () => {
    const owner = await newFunded(10_000_000n);
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const raw = parseTransactionJson(parseJson(JSON.stringify(tx)), false).raw;
    raw.refBlockHash = Uint8Array.from(raw.refBlockHash, (b) => b ^ 0xff);
    const res = await broadcast(signRaw(raw, owner.privateKey));
    expect(res).toEqual(rejected('TAPOS_ERROR', 'Tapos check error.', txIdOf(raw)));
  });

  it('duplicate: DUP_TRANSACTION_ERROR while pending and after it is mined', async () => {
    const owner = await newFunded(10_000_000n);
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const signed = await tw.trx.sign(tx, owner.privateKey);
    expect(await broadcast(signed)).toEqual({ result: true, txid: tx.txID });
    const dup = rejected('DUP_TRANSACTION_ERROR', 'Dup transaction.', tx.txID);
    expect(await broadcast(signed)).toEqual(dup);
    await devnet.mine(1);
    expect(await broadcast(signed)).toEqual(dup);
  });

  it('real mainnet transactions are recognised (same txid) and refused as expired', async () => {
    for (const v of vectors.signed.filter((s) => s.name.startsWith('REAL mainnet'))) {
      const raw = decodeRaw(hexToBytes(v.raw_data_hex as string));
      const json = printTransaction(
        { raw, signatures: [hexToBytes(v.signature?.[0] as string)], ret: [] },
        false,
      );
      expect(await broadcast(json)).toEqual(
        rejected('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', v.txID),
      );
    }
  });
});

describe('token-only addresses cannot pay for resources', () => {
  /** `holder` sends 1 unit of USDT back to the faucet: the node builds it, it is signed and broadcast as is. */
  async function sendOneUnitToFaucet(holder: { address: { base58: string }; privateKey: string }) {
    const { transaction } = await buildTrc20Transfer(tw, {
      token: devnet.tokens.trc20.USDT,
      from: holder.address.base58,
      to: devnet.faucet.address,
      amount: 1,
      feeLimit: 10_000_000,
    });
    return {
      txid: transaction.txID,
      res: await broadcast(await tw.trx.sign(transaction, holder.privateKey)),
    };
  }

  it('an address that only holds TRC20 is not an account: "account [...] does not exist"', async () => {
    const holder = await tw.createAccount();
    await devnet.faucetTrc20(devnet.tokens.trc20.USDT, holder.address.base58, 1_000_000n);
    const { txid, res } = await sendOneUnitToFaucet(holder);
    expect(res).toEqual(
      rejected(
        'CONTRACT_VALIDATE_ERROR',
        `Contract validate error : account [${holder.address.base58}] does not exist`,
        txid,
      ),
    );
  });

  it('an activated account without TRX: free bandwidth lets one call in (OUT_OF_ENERGY), the next is BANDWITH_ERROR', async () => {
    const holder = await tw.createAccount();
    // A TRC10 transfer activates the account without giving it any TRX.
    const [, assetId] = Object.entries(devnet.tokens.trc10)[0] as [string, string];
    await devnet.faucetTrc10(assetId, holder.address.base58, 1n);
    await devnet.faucetTrc20(devnet.tokens.trc20.USDT, holder.address.base58, 1_000_000n);
    const send = () => sendOneUnitToFaucet(holder);
    const first = await send();
    expect(first.res).toEqual({ result: true, txid: first.txid });
    await devnet.mine(1);
    const info = await post<Record<string, unknown>>(devnet.url, '/wallet/gettransactioninfobyid', {
      value: first.txid,
    });
    expect(info['result']).toBe('FAILED');
    expect(info['receipt']).toEqual({ net_usage: 345, result: 'OUT_OF_ENERGY' });
    expect(info['fee']).toBeUndefined();

    const second = await send();
    expect(second.res).toEqual(
      rejected('BANDWITH_ERROR', 'Account resource insufficient error.', second.txid),
    );
  });
});

describe('smart-contract endpoint errors live in TransactionExtention.result', () => {
  it('triggersmartcontract: no contract / missing owner, as captured (visible=true prints text)', async () => {
    const notAContract = (await tw.createAccount()).address.base58;
    const body = {
      owner_address: devnet.faucet.address,
      contract_address: notAContract,
      function_selector: 'transfer(address,uint256)',
      parameter: '',
      fee_limit: 1000,
      call_value: 0,
    };
    const err = responses.triggersmartcontract.errors;
    expect(await post(devnet.url, '/wallet/triggersmartcontract', { ...body, visible: true })).toEqual(
      err.no_contract,
    );
    const hexBody = {
      ...body,
      owner_address: parseAddress(body.owner_address),
      contract_address: parseAddress(notAContract),
    };
    expect(await post(devnet.url, '/wallet/triggersmartcontract', hexBody)).toEqual({
      result: { code: 'CONTRACT_VALIDATE_ERROR', message: utf8Hex(err.no_contract.result.message) },
    });
    expect(
      await post(devnet.url, '/wallet/triggersmartcontract', { ...body, owner_address: '', visible: true }),
    ).toEqual(err.missing_owner);
    expect(await post(devnet.url, '/wallet/triggerconstantcontract', { ...body, visible: true })).toEqual(
      responses.triggerconstantcontract.errors.no_contract,
    );
  });

  it('triggerconstantcontract on a reverting call: REVERT message, revert data, ret FAILED', async () => {
    const poor = (await tw.createAccount()).address.base58;
    const res = await post<{
      result: { result: boolean; message: string };
      energy_used: number;
      constant_result: string[];
      transaction: { ret: unknown[] };
    }>(devnet.url, '/wallet/triggerconstantcontract', {
      owner_address: poor,
      contract_address: devnet.tokens.trc20.USDT,
      function_selector: 'transfer(address,uint256)',
      parameter: `${'0'.repeat(24)}${(parseAddress(devnet.faucet.address) as string).slice(2)}${'0'.repeat(63)}1`,
      visible: true,
    });
    expect(res.result).toEqual({ result: true, message: 'REVERT opcode executed' });
    expect(res.constant_result[0]?.startsWith('08c379a0')).toBe(true);
    expect(res.energy_used).toBeGreaterThan(0);
    expect(res.transaction.ret).toEqual([{ ret: 'FAILED' }]);
  });
});

describe('broadcasthex', () => {
  it('accepts a devnet-signed protobuf and echoes the transaction JSON', async () => {
    const owner = await newFunded(10_000_000n);
    const tx = await tw.transactionBuilder.sendTrx(devnet.faucet.address, 1_000, owner.address.base58);
    const signed = await tw.trx.sign(tx, owner.privateKey);
    const raw = decodeRaw(hexToBytes(tx.raw_data_hex));
    const sig = hexToBytes((signed.signature[0] as string).toLowerCase());
    const hex = bytesToHex(encodeTransaction({ raw, signatures: [sig], ret: [] }));
    const res = await post<Record<string, unknown>>(devnet.url, '/wallet/broadcasthex', { transaction: hex });
    expect(res).toMatchObject({ result: true, code: 'SUCCESS', message: '', txid: tx.txID });
    const echoed = JSON.parse(res['transaction'] as string) as { signature: string[] };
    expect(echoed.signature).toEqual([(signed.signature[0] as string).toLowerCase()]);
  });

  it('the docs broadcasthex vector decodes to its txid and is refused as expired', async () => {
    const v = vectors.signed.find((s) => 'transaction_pb_hex' in s) as {
      transaction_pb_hex: string;
      txID: string;
    };
    const res = await post(devnet.url, '/wallet/broadcasthex', { transaction: v.transaction_pb_hex });
    expect(res).toMatchObject({
      result: false,
      code: 'TRANSACTION_EXPIRATION_ERROR',
      message: 'Transaction expired',
      txid: v.txID,
    });
  });
});

describe('signature permission check against the negative vector', () => {
  it('names the recovered signer (java-tron 4.8 TransactionCapsule.checkWeight text)', () => {
    const v = vectors.signed.find((s) => s.name.startsWith('NEGATIVE')) as (typeof vectors.signed)[number] & {
      owner_hex: string;
    };
    const raw = decodeRaw(hexToBytes(v.raw_data_hex as string));
    const sig = hexToBytes(v.signature?.[0] as string);
    // java-tron's checkWeight prints the signature hex before "is signed by" (TransactionCapsule.java,
    // master and release_v4.8.1); the vector's note says txID, which the source does not do.
    expect(() => validateSignature({ raw, signatures: [sig], ret: [] }, v.txID)).toThrow(
      new SignatureError(
        `${v.signature?.[0]} is signed by ${v.signer_base58} but it is not contained of permission.`,
      ),
    );
    expect(hexAddressToBase58(v.signer_hex as string)).toBe(v.signer_base58);
  });
});
