// TON on a TON devnet the test file starts: amounts in nanotons, USDT as a TEP-74 jetton through
// transactions/jetton, keys as the 32-byte ed25519 seed in hex (the gateway's export form), V5R1 wallets,
// @ton/ton signs outside the gateway. The devnet closes a block on a timer (a custodial send answers once
// its message has landed, so blocks must come while it waits); it has no reorg.
import { randomBytes } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { Address, beginCell, Cell, external, internal, storeMessage, WalletContractV5R1 } from '@ton/ton';
import type { TonDevnet } from '../../../devnets/ton/index.ts';
import { normalizedMessageHash } from '../../../src/chains/ton/message-hash.ts';
import type { ApiResponse } from '../../helpers/gateway.ts';
import type { ConformanceDriver } from '../driver.ts';
import { listedAddressRoutes, nativeBalanceIn } from './wallet-routes.ts';

/** The V5R1 wallet of a seed on the devnet's network (mainnet's global id). */
function walletOf(seed: Buffer) {
  const keys = keyPairFromSeed(seed);
  const wallet = WalletContractV5R1.create({
    workchain: 0,
    publicKey: keys.publicKey,
    walletId: { networkGlobalId: -239 },
  });
  return { keys, wallet };
}

/** A created or imported address: TON answers the one address, not a list. */
function answeredAddress(body: ApiResponse['body']): string {
  const data = body.data;
  return Array.isArray(data) ? data[0].address : data.address;
}

interface BuiltMessage {
  to: string;
  value: string;
  bounce: boolean;
  body: string | null;
}

export function tonDriver(devnet: TonDevnet): ConformanceDriver {
  const usdt = devnet.tokens.jetton.USDT;
  const newKey = () => {
    const seed = randomBytes(32);
    const { wallet } = walletOf(seed);
    return { address: wallet.address.toString({ bounceable: false }), privateKey: seed.toString('hex') };
  };
  return {
    chain: 'ton',
    gatewayEnv: { TON_MAINNET_URLS: devnet.url },
    native: { decimals: 9, webhookType: 'TON' },
    token: {
      contract: usdt,
      decimals: 6,
      webhookType: 'JETTON',
      sendPath: '/transactions/jetton',
      noContract: () => newKey().address,
      // The send's schema checks the master before anything is asked of the node.
      unknownContractSend: { status: 422, message: /^Data validation failed$/ },
      fund: async (address, units) => {
        await devnet.mintJetton(usdt, address, units);
      },
      balance: async (api, address) =>
        BigInt((await api('GET', `/balances/${address}/jetton/${usdt}`)).body.data.balance_raw),
      infoPath: (master) => `/jetton/${master}`,
    },
    txid: /^[0-9a-f]{64}$/,
    unknownTxid: 'ab'.repeat(32),
    badAddress: 'not-a-ton-address',
    insufficientFunds: /^Insufficient funds: /,
    wrongPasswordSend: { status: 401, message: /^Wrong password provided$/ },
    newKey,
    addressOf: (privateKey) =>
      walletOf(Buffer.from(privateKey, 'hex')).wallet.address.toString({ bounceable: false }),
    fundNative: async (address, nanotons) => {
      await devnet.fund(address, nanotons);
    },
    settle: async () => {
      await devnet.advance(2);
    },
    nativeBalance: nativeBalanceIn('nanotons'),
    ...listedAddressRoutes,
    createdAddress: answeredAddress,
    importedAddress: answeredAddress,
    signOutside: async (built, key) => {
      const transfer = built.data.transfer;
      const { keys, wallet } = walletOf(Buffer.from(key.privateKey, 'hex'));
      const body = wallet.createTransfer({
        seqno: transfer.seqno,
        timeout: transfer.validUntil,
        sendMode: transfer.sendMode,
        secretKey: keys.secretKey,
        messages: transfer.messages.map((m: BuiltMessage) =>
          internal({
            to: Address.parse(m.to),
            value: BigInt(m.value),
            bounce: m.bounce,
            body: m.body === null ? undefined : Cell.fromBase64(m.body),
          }),
        ),
      });
      const signed = external({
        to: wallet.address,
        init: transfer.stateInit === null ? undefined : wallet.init,
        body,
      });
      const boc = beginCell().store(storeMessage(signed)).endCell().toBoc().toString('base64');
      return { body: { boc }, txid: normalizedMessageHash(signed) };
    },
    // A jetton transfer's TON comes from the sponsor and its excess goes back there.
    sponsorLeavesNothing: true,
    gaps: {
      'build, sign outside the gateway with the client library, broadcast':
        "a build from a wallet not deployed yet needs its public key (`publickey`), which the scenario's build does not give",
      'reads of a landed send: head, its block, the transaction raw and decoded, its receipt, balances':
        "a send answers its external message's normalized hash; the decoded transaction names the transaction's own hash",
      'one amount rule: 1.5 of the coin and 12.5 of a 6-decimal token read alike in the history and webhooks':
        "the webhook names the transaction's hash, not the send's txid (its external message's normalized hash)",
      'concurrent sends from one address, each a share of its balance: the receiver gets exactly the 201s':
        'a receiver not deployed yet pays storage from what it receives: its balance is a nanoton short of the sum',
      'history lists both a send and an outside-signed broadcast':
        "a build from a wallet not deployed yet needs its public key (`publickey`), which the scenario's build does not give",
      'webhook reverted when a reorg drops a notified transfer':
        'the TON devnet has no reorg (TON blocks are final once made)',
    },
  };
}
