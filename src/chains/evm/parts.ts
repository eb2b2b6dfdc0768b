/**
 * The EVM family's own parts, built once per context (one nonce manager for every chain): its sends, key
 * imports and exports, token reads, and every Ethereum/BSC/Polygon/Arbitrum operation of the spec over
 * them, and its fee sponsor (an exact top-up); the chains differ only by their data (`chains.ts`).
 */
import type { FamilyParts } from '../family.ts';
import type { ChainOperation } from '../operations.ts';
import type { FamilyPorts } from '../ports.ts';
import type { ChainName } from '../types.ts';
import { isEvmChainName } from './chains.ts';
import { EvmFeeSponsor } from './fee-sponsor.ts';
import { evmKeyOperations } from './key-operations.ts';
import { EvmKeystores } from './keystores.ts';
import { NonceReconciler } from './nonce-reconciler.ts';
import { evmReadOperations } from './read-operations.ts';
import { evmSendOperations } from './send-operations.ts';
import { EvmSends } from './sends.ts';
import { EvmTokenReads } from './token-reads.ts';

export function evmParts(ports: FamilyPorts): FamilyParts {
  const { registry, store, custody } = ports;
  const sends = new EvmSends({ db: store.db, dialect: store.dialect, registry });
  const keyOperations = evmKeyOperations(new EvmKeystores({ registry, custody }));
  const tokens = new EvmTokenReads({ registry });
  const operations = (chain: ChainName): ChainOperation[] => {
    if (!isEvmChainName(chain)) throw new Error(`${chain} is not an EVM chain`);
    return [...evmSendOperations(chain, sends), ...keyOperations, ...evmReadOperations(chain, tokens)];
  };
  // Sent-but-unmined transactions are broadcast again by whichever instances watch the chains.
  const reconciler = new NonceReconciler(
    store.db,
    store.dialect,
    registry,
    ports.logger.child({ role: 'nonces' }),
    { troubleLog: ports.troubleLog, droppedNotices: ports.droppedSends, history: ports.history },
  );
  const sponsor = new EvmFeeSponsor({ db: store.db, dialect: store.dialect, registry });
  return { operations, watcherTasks: [reconciler], sponsor };
}
