/**
 * The shape of a chain family module: everything a family (Tron, EVM, ...) adds to the gateway, as one
 * object exported by `src/chains/<family>/index.ts` and listed once in `families.ts`. Services and the
 * shared routes ask the module; they never import a family's internals.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../app-context.ts';
import type { NodeEndpointConfig } from '../config.ts';
import type { NodeClient } from './node-client.ts';
import type { AdapterFactory } from './registry.ts';
import type { ChainKeyPair, ChainName, HeadProbe, Network } from './types.ts';

/** What the registry and the node monitor need of one served chain. */
export interface ChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  /** The head probe of one endpoint, over a client of that endpoint alone. */
  probe: (client: NodeClient) => HeadProbe;
}

/** How a family makes, reads and names its keys. */
export interface KeyCodec {
  generate(): ChainKeyPair;
  /** Throws for a malformed or out-of-range key. */
  fromPrivateKey(privateKeyHex: string): ChainKeyPair;
  /** The canonical form an address is stored and compared in. */
  normalizeAddress(address: string): string;
}

/** A family's address: what the schemas state of it and how the gateway checks and stores it. */
export interface AddressForm {
  /** JSON-schema pattern of the forms a request may carry. */
  pattern: string;
  description: string;
  example: string;
  isValid(address: string): boolean;
  /** The form answers and the store use (base58 for Tron, EIP-55 for EVM). */
  canonical(address: string): string;
}

/** What a transfer moves, as the chain names it in the history and in webhooks (BSC: BNB, BEP20, BEP721). */
export interface TransferTypes {
  native: string;
  fungible: string;
  nft: string;
}

/** Plugin options of a family's own routes. */
export interface FamilyRoutesOptions {
  ctx: AppContext;
}

export interface FamilyModule {
  /** The family's name (`tron`, `evm`). */
  readonly name: string;
  /** Every chain this family serves, with its adapter factory, public endpoints and head probe. */
  readonly chains: Partial<Record<ChainName, ChainFamily>>;
  readonly keys: KeyCodec;
  readonly address: AddressForm;
  transferTypes(chain: ChainName): TransferTypes;
  /** The routes only this family has, registered once for all its chains. */
  readonly routes: FastifyPluginAsync<FamilyRoutesOptions>;
}
