// What a family tells the conformance suite: how its chain is reached and funded, how amounts and keys
// look, and how to sign outside the gateway. The scenarios (scenarios.ts) are written once against this.
import type { ApiResponse, RequestOptions } from '../helpers/gateway.ts';

/** A request to this chain's routes (/api/v2/<chain><path>) with the suite's user token. */
export type ChainApi = (method: string, path: string, options?: RequestOptions) => Promise<ApiResponse>;

/** A key made outside the gateway. */
export interface OutsideKey {
  address: string;
  privateKey: string;
}

/** How a chain's demo token is sent, funded, read and refused. */
export interface TokenDriver {
  contract: string;
  decimals: number;
  webhookType: string;
  sendPath: string;
  /** An address of the right form that is no contract (a token send to it has nothing to call). */
  noContract(): string;
  /** How a token send to an address without code is refused. */
  unknownContractSend: { status: number; message: RegExp };
  fund(address: string, units: bigint): Promise<void>;
  /** A token balance read through the API, in base units. */
  balance(api: ChainApi, address: string): Promise<bigint>;
  /** The route that reads a token contract's description. */
  infoPath(contract: string): string;
}

export interface ConformanceDriver {
  /** The chain's route segment: /api/v2/<chain>/... */
  chain: string;
  /** Environment that points a gateway's mainnet for this chain at the devnet. */
  gatewayEnv: Record<string, string>;
  native: { decimals: number; webhookType: string };
  /** The chain's fungible tokens; a chain without any (Bitcoin) leaves it out, and its token scenarios do not apply. */
  token?: TokenDriver;
  /** What a transaction id looks like on this chain (a hash in hex, a signature in base58). */
  txid: RegExp;
  /** A well-formed transaction id no transaction has. */
  unknownTxid: string;
  /** Text the chain cannot take as an address. */
  badAddress: string;
  /** The documented refusal of a send larger than the balance (README). */
  insufficientFunds: string | RegExp;
  /** The documented answer to a wrong password on a send (README): 401, or Tron's 422. */
  wrongPasswordSend: { status: number; message: RegExp };

  newKey(): OutsideKey;
  /** The address a private key in the gateway's export form controls. */
  addressOf(privateKey: string): string;
  fundNative(address: string, units: bigint): Promise<void>;
  /** Lands what was broadcast in a block (and one more, so the follower has seen it). */
  settle(): Promise<void>;
  /** After `settle`: makes what landed final, where the family waits for more (Solana: its slot finalized). */
  finalize?: () => Promise<void>;

  /** Balances read through the API, in base units. */
  nativeBalance(api: ChainApi, address: string): Promise<bigint>;
  /**
   * What an address was paid of the coin in all, where its balance is less than that: TON takes rent from
   * an account at each of its transactions. The balance where absent.
   */
  received?: (api: ChainApi, address: string) => Promise<bigint>;

  /** The created address in a POST /addresses answer; the imported one in a POST /addresses/import answer. */
  createdAddress(body: ApiResponse['body']): string;
  importedAddress(body: ApiResponse['body']): string;
  /** Exports a stored key with its password; `privateKey` when the export succeeded. */
  exportKey(
    api: ChainApi,
    address: string,
    password: string,
  ): Promise<{ response: ApiResponse; privateKey?: string }>;

  /**
   * What a build from an outside key needs beside from, to and amount (TON: the public key of a wallet
   * not yet deployed, whose address alone does not tell it).
   */
  buildFields?: (key: OutsideKey) => Record<string, string>;
  /** Signs what POST /transactions/build answered with the client library; the broadcast body and txid. */
  signOutside(built: ApiResponse['body'], key: OutsideKey): Promise<{ body: unknown; txid: string }>;

  /** Replaces the newest `depth` blocks with empty ones, dropping their transactions. */
  reorg?: (depth: number) => Promise<void>;

  /**
   * Makes a funded sponsor address ready to pay the way its family pays best (Tron: stakes TRX for energy
   * and bandwidth to delegate); absent where the coin alone pays.
   */
  prepareSponsor?: (api: ChainApi, address: string, password: string) => Promise<void>;
  /** A sponsored token transfer leaves the sender none of the coin (Tron, Solana); EVM leaves what its gas did not use. */
  sponsorLeavesNothing: boolean;

  /** Scenarios this family cannot pass yet, each with the reason; the suite skips them by name. */
  gaps: Partial<Record<string, string>>;
}
