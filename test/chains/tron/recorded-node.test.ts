/**
 * The adapter against a real HTTP server that replays recorded java-tron answers: how it checks
 * node-built transactions against the request, and faults the devnet cannot produce (a node that
 * builds something else, a broadcast whose first answer is lost).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TronAdapter } from '../../../src/chains/tron/adapter.ts';
import {
  TronBroadcastError,
  TronInvalidResponseError,
  TronNodeError,
} from '../../../src/chains/tron/errors.ts';
import http from '../../vectors/tron_http_responses.json' with { type: 'json' };

type Reply = (path: string, body: Record<string, unknown>, index: number) => unknown | Promise<unknown>;

interface Hit {
  path: string;
  body: Record<string, unknown>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function recordedNode(reply: Reply): Promise<{ adapter: TronAdapter; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
      hits.push({ path: req.url ?? '', body });
      const answer = await reply(req.url ?? '', body, hits.length - 1);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const adapter = new TronAdapter({
    network: 'testnet',
    endpoints: [{ url, headers: { 'TRON-PRO-API-KEY': 'secret-key-value' } }],
    timeoutMs: 300,
    retries: 1,
  });
  cleanups.push(async () => {
    await adapter.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { adapter, hits };
}

const create = http.createtransaction;
const trigger = http.triggersmartcontract;
const freeze = http.freezebalancev2;

describe('node-built transactions are verified against the request', () => {
  it('accepts the recorded createtransaction answer for the same request', async () => {
    const { adapter, hits } = await recordedNode(() => create.response);
    const tx = await adapter.buildTrxTransfer(
      adapter.toBase58(create.request.owner_address),
      adapter.toBase58(create.request.to_address),
      BigInt(create.request.amount),
    );
    expect(tx).toEqual(create.response);
    expect(hits).toEqual([
      { path: '/wallet/createtransaction', body: { ...create.request, visible: false } },
    ]);
  });

  it('refuses it when the node built a different amount or recipient', async () => {
    const { adapter } = await recordedNode(() => create.response);
    await expect(
      adapter.buildTrxTransfer(create.request.owner_address, create.request.to_address, 2_000_000n),
    ).rejects.toThrow(TronInvalidResponseError);
    await expect(
      adapter.buildTrxTransfer(
        create.request.owner_address,
        'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
        1_000_000n,
      ),
    ).rejects.toThrow(/does not match the requested one/);
  });

  it('refuses a transaction whose raw_data JSON was changed while raw_data_hex was kept', async () => {
    const tampered = structuredClone(create.response);
    tampered.raw_data.expiration += 3_600_000;
    const { adapter } = await recordedNode(() => tampered);
    await expect(
      adapter.buildTrxTransfer(create.request.owner_address, create.request.to_address, 1_000_000n),
    ).rejects.toThrow(TronInvalidResponseError);
  });

  it('refuses another contract type', async () => {
    const { adapter } = await recordedNode(() => freeze.response);
    await expect(
      adapter.buildTrxTransfer(create.request.owner_address, create.request.to_address, 1_000_000n),
    ).rejects.toThrow(/FreezeBalanceV2Contract where a TransferContract was requested/);
  });

  it('accepts the recorded TRC20 transfer, and refuses it for another fee limit or amount', async () => {
    const { adapter, hits } = await recordedNode(() => trigger.response);
    const to = `41${trigger.request.parameter.slice(24, 64)}`;
    const tx = await adapter.buildTrc20Transfer(
      trigger.request.owner_address,
      to,
      trigger.request.contract_address,
      100n,
      100_000_000n,
    );
    expect(tx).toEqual(trigger.response.transaction);
    expect(hits[0]!.body).toEqual({ ...trigger.request, visible: false });
    await expect(
      adapter.buildTrc20Transfer(
        trigger.request.owner_address,
        to,
        trigger.request.contract_address,
        100n,
        200_000_000n,
      ),
    ).rejects.toThrow(TronInvalidResponseError);
    await expect(
      adapter.buildTrc20Transfer(
        trigger.request.owner_address,
        to,
        trigger.request.contract_address,
        101n,
        100_000_000n,
      ),
    ).rejects.toThrow(TronInvalidResponseError);
  });

  it('accepts the recorded freezebalancev2 answer', async () => {
    const { adapter } = await recordedNode(() => freeze.response);
    const tx = await adapter.buildFreeze(freeze.request.owner_address, 1_000_000_000n, 'ENERGY');
    expect(tx).toEqual(freeze.response);
    await expect(
      adapter.buildFreeze(freeze.request.owner_address, 1_000_000_000n, 'BANDWIDTH'),
    ).rejects.toThrow(TronInvalidResponseError);
  });

  it('turns builder errors into TronNodeError with the Java class removed', async () => {
    const { adapter } = await recordedNode(() => http.delegateresource.real_error_response);
    const error = await adapter
      .buildDelegate(
        http.delegateresource.request.owner_address,
        http.delegateresource.request.receiver_address,
        1_000_000_000n,
        'ENERGY',
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TronNodeError);
    expect((error as Error).message).toBe(
      'delegateBalance must be less than or equal to available FreezeEnergyV2 balance',
    );
  });
});

describe('broadcast', () => {
  const signed = {
    ...create.response,
    signature: ['00'.repeat(65)],
  };

  it('a DUP_TRANSACTION_ERROR after a lost first answer counts as success', async () => {
    const { adapter, hits } = await recordedNode(async (_path, body, index) => {
      if (index === 0) {
        // The node takes the transaction but its answer never arrives in time.
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { result: true, txid: body['txID'] };
      }
      return {
        code: 'DUP_TRANSACTION_ERROR',
        txid: create.response.txID,
        message: Buffer.from('Dup transaction.').toString('hex'),
      };
    });
    await expect(adapter.broadcast(signed)).resolves.toEqual({ txid: create.response.txID });
    expect(hits).toHaveLength(2);
    expect(hits[1]!.body['signature']).toEqual(signed.signature);
  });

  it('translates a refusal, and its message carries neither the endpoint nor its API key', async () => {
    const { adapter } = await recordedNode(() => ({
      ...http.broadcasttransaction.contract_validate_error_balance,
      txid: create.response.txID,
    }));
    const error = (await adapter.broadcast(signed).catch((e: unknown) => e)) as TronBroadcastError;
    expect(error).toBeInstanceOf(TronBroadcastError);
    expect(error.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(error.message).toBe(http.broadcasttransaction.contract_validate_error_balance_decoded);
    expect(error.apiMessage).toBe('balance is not sufficient');
    expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/127\.0\.0\.1|secret-key-value/);
  });
});

describe('older or restricted nodes', () => {
  const constant = http.triggerconstantcontract.response;
  const owner = constant.transaction.raw_data.contract[0]!.parameter.value.owner_address;
  const contract = constant.transaction.raw_data.contract[0]!.parameter.value.contract_address;

  it('without estimateenergy, the dry run alone gives the energy, and the node is not asked again', async () => {
    const { adapter, hits } = await recordedNode((path) => {
      if (path === '/wallet/triggerconstantcontract') return constant;
      if (path === '/wallet/estimateenergy') {
        const message = Buffer.from('this node does not support estimate energy').toString('hex');
        return { result: { code: 'OTHER_ERROR', message } };
      }
      if (path === '/wallet/getchainparameters') {
        return {
          chainParameter: [
            { key: 'getEnergyFee', value: 210 },
            { key: 'getTransactionFee', value: 1000 },
          ],
        };
      }
      if (path === '/wallet/getaccount') return http.getaccount.response;
      if (path === '/wallet/getaccountresource') return http.getaccountresource.response;
      return {};
    });
    const call = { contract, data: constant.transaction.raw_data.contract[0]!.parameter.value.data };
    const first = await adapter.estimateContractTransfer(owner, call);
    expect(first.energy).toBe(935n);
    expect(first.energyRequired).toBe(935n);
    expect(first.energyFeeSun).toBe(935n * 210n);
    // 173 raw bytes + 3 field bytes + one 67-byte signature + 64: 307 bytes. Only 159 of the 600 free
    // bytes are left and nothing is staked, so every byte is burned.
    expect(constant.transaction.raw_data_hex.length / 2).toBe(173);
    expect(first.bandwidth).toBe(307n);
    expect(first.bandwidthFeeSun).toBe(307_000n);
    expect(first.balanceSun).toBe(1_793_227_200n);
    await adapter.estimateContractTransfer(owner, call);
    expect(hits.filter((h) => h.path === '/wallet/estimateenergy')).toHaveLength(1);
    expect(hits.filter((h) => h.path === '/wallet/getchainparameters')).toHaveLength(1);
  });

  it('reads the head from getnowblock when getblock is not served', async () => {
    const { adapter, hits } = await recordedNode((path) =>
      path === '/wallet/getblock' ? { Error: 'no such endpoint' } : http.getnowblock.response,
    );
    expect(await adapter.getBlockNumber()).toBe(66987627n);
    expect(await adapter.getBlockNumber()).toBe(66987627n);
    expect(hits.map((h) => h.path)).toEqual([
      '/wallet/getblock',
      '/wallet/getnowblock',
      '/wallet/getnowblock',
    ]);
  });
});

describe('factory', () => {
  it('builds a testnet or mainnet adapter from the registry context', async () => {
    const { tronAdapterFactory, TRON_DEFAULT_ENDPOINTS } = await import(
      '../../../src/chains/tron/adapter.ts'
    );
    const adapter = tronAdapterFactory({
      chain: 'tron',
      network: 'mainnet',
      endpoints: TRON_DEFAULT_ENDPOINTS.mainnet,
      timeoutMs: 1000,
      retries: 0,
      logger: (await import('pino')).default({ enabled: false }),
      settings: {},
    }) as TronAdapter;
    expect([adapter.chain, adapter.network, adapter.nativeSymbol, adapter.nativeDecimals]).toEqual([
      'tron',
      'mainnet',
      'TRX',
      6,
    ]);
    expect(TRON_DEFAULT_ENDPOINTS.testnet[0]!.url).toBe('https://nile.trongrid.io');
    await adapter.close();
  });
});
