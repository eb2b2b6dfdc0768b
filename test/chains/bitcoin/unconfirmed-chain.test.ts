// The unconfirmed ancestors of a coin as each backend reads them from the Bitcoin devnet: the walk that
// prices a send spending unconfirmed change (package-fee.ts) and checks the mempool's chain limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import type { BitcoinBackend } from '../../../src/chains/bitcoin/backend.ts';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc.ts';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora.ts';
import { unconfirmedAncestry } from '../../../src/chains/bitcoin/unconfirmed-chain.ts';
import type { NodeClient } from '../../../src/chains/node-client.ts';
import { outputTo, postTx, spend, testKey } from '../../devnets/bitcoin/helpers.ts';
import { clientOf } from './node-server.ts';

let devnet: BitcoinDevnet;
const clients: NodeClient[] = [];
const alice = testKey('ancestry.alice');

beforeAll(async () => {
  devnet = await startBitcoinDevnet();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await devnet.close();
});

const backends: [string, () => BitcoinBackend][] = [
  ['Esplora', () => new EsploraBackend(clients[clients.push(clientOf(devnet.url)) - 1]!)],
  ['Core', () => new CoreRpcBackend(clients[clients.push(clientOf(devnet.coreUrl)) - 1]!)],
];

describe.each(backends)('unconfirmedAncestry over %s', (_, backendOf) => {
  it('lists the unconfirmed transaction and its unconfirmed ancestors with their fees, down to a block', async () => {
    const backend = backendOf();
    const funding = await devnet.faucet(alice.address, 100_000n);
    await devnet.mine();
    const coin = await outputTo(devnet.url, funding, alice.script);
    const parent = spend([{ ...coin, key: alice }], [{ script: alice.script, value: 99_000n }]);
    expect((await postTx(devnet.url, parent.toHex())).status).toBe(200);
    const child = spend(
      [{ txid: parent.getId(), vout: 0, value: 99_000n, key: alice }],
      [{ script: alice.script, value: 97_000n }],
    );
    expect((await postTx(devnet.url, child.toHex())).status).toBe(200);

    const ancestry = await unconfirmedAncestry(backend, child.getId());
    expect(ancestry).toEqual(
      new Map([
        [child.getId(), { txid: child.getId(), vsize: child.virtualSize(), fee: 2_000n }],
        [parent.getId(), { txid: parent.getId(), vsize: parent.virtualSize(), fee: 1_000n }],
      ]),
    );
    expect(await unconfirmedAncestry(backend, funding)).toEqual(new Map());
    // Dropped or never sent: the coin is not spent.
    expect(await unconfirmedAncestry(backend, 'ab'.repeat(32))).toBeNull();
    await devnet.mine();
    expect(await unconfirmedAncestry(backend, child.getId())).toEqual(new Map());
  });
});
