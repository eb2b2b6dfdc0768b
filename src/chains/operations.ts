/**
 * What a family declares of its routes, as data: the HTTP layer (`src/http/routes/chain/operations.ts`)
 * registers each one under `/api/v2/{chain}` with the envelope, the status, the success message, the
 * errors and the caller's scope that every route of its kind shares, so a family's folder holds no route
 * code and imports nothing from `src/http/`.
 *
 * Each kind is a generic description wrapped by its constructor (`sendOperation`, `buildOperation`, ...)
 * into a `ChainOperation`, which hands the description to the registrar with its types intact.
 */
import { type Static, type TObject, type TSchema, type TString, Type } from '@sinclair/typebox';
import type { SigningProof } from '../custody/address-keys.ts';
import type { Caller } from './ports.ts';
import type { PreparedSend, PreparedWalletSend, SignedBroadcast } from './send-contract.ts';

/** How big a route's body may be (the HTTP layer maps each kind to its byte limit). */
export type BodySize = 'default' | 'keystore' | 'callData' | 'signedTransaction';

/** The documentation every operation carries into the OpenAPI document. */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** The tags shown beside the chain's own (`[chain]` when absent). */
  tags?: string[];
}

/** A send: who signs (an address's password or private key, or a wallet's password) and what is sent. */
export type SendRequest =
  | { proof: SigningProof; prepared: PreparedSend }
  | { walletPassword: string; prepared: PreparedWalletSend };

/**
 * A route that signs and broadcasts with a custodial or given key, through the send pipeline: 201
 * `Succesfully created transaction` unless `answer` says otherwise.
 */
export interface SendOperation<Body extends TObject> extends OperationDoc {
  path: string;
  body: Body;
  /** The answer's `data`: `{ txid }` and what the family adds. */
  data: TSchema;
  /** Other than the default 201 `Succesfully created transaction` (Tron's staking answers 200). */
  answer?: { status: 200 | 201; message: string };
  bodySize?: BodySize;
  /** Checks the fields and prepares the send; the pipeline unlocks the key, signs and broadcasts. */
  prepare(caller: Caller, body: Static<Body>): SendRequest;
}

/** A route that builds an unsigned transaction to sign elsewhere: 200 `Transaction built`; nothing stored. */
export interface BuildOperation<Body extends TObject, Data extends TSchema> extends OperationDoc {
  path: string;
  body: Body;
  data: Data;
  bodySize?: BodySize;
  build(caller: Caller, body: Static<Body>): Promise<Static<Data>>;
}

/**
 * A route that broadcasts a transaction signed elsewhere, through the send pipeline: 201, `{ txid }`. Its
 * body may be any schema (Tron takes the signed transaction at the top level or under `transaction`).
 */
export interface BroadcastOperation<Body extends TSchema> extends OperationDoc {
  path: string;
  body: Body;
  /** The schema of the answer's `txid`. */
  txid: TSchema;
  bodySize?: BodySize;
  /** Async where the family reads the transaction with its chain library, loaded on first use. */
  signed(caller: Caller, body: Static<Body>): SignedBroadcast | Promise<SignedBroadcast>;
}

/** The part of a request an operation does not read: no schema is registered for it. */
export const NO_INPUT = Type.Object({});

/** The schemas of a family's own operation's path parameters, query and body (`NO_INPUT` where none). */
export interface OperationInput<Params extends TObject, Query extends TObject, Body extends TObject> {
  params: Params;
  querystring: Query;
  body: Body;
}

/** What a family's own operation is given of its request, typed from its schemas. */
export interface OperationCall<Params extends TObject, Query extends TObject, Body extends TObject> {
  params: Static<Params>;
  query: Static<Query>;
  body: Static<Body>;
}

/** A route only this family has (Tron staking, EVM keystores, Bitcoin wallets, token reads). */
export interface FamilyOperation<
  Params extends TObject,
  Query extends TObject,
  Body extends TObject,
  Data extends TSchema,
> extends OperationDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  input: OperationInput<Params, Query, Body>;
  data: Data;
  /** 200 unless the operation creates something. */
  status?: 200 | 201;
  /** The success envelope's `message`. */
  message: string;
  /** Error statuses beyond those every route of its kind answers. */
  errors?: number[];
  bodySize?: BodySize;
  run(caller: Caller, call: OperationCall<Params, Query, Body>): Promise<Static<Data>>;
}

/** Registers each kind of operation; the HTTP layer implements it once per chain. */
export interface OperationRegistrar {
  send<Body extends TObject>(operation: SendOperation<Body>): void;
  build<Body extends TObject, Data extends TSchema>(operation: BuildOperation<Body, Data>): void;
  broadcast<Body extends TSchema>(operation: BroadcastOperation<Body>): void;
  own<Params extends TObject, Query extends TObject, Body extends TObject, Data extends TSchema>(
    operation: FamilyOperation<Params, Query, Body, Data>,
  ): void;
}

/** One operation of a family, whatever its kind and types. */
export interface ChainOperation {
  registerWith(registrar: OperationRegistrar): void;
}

export function sendOperation<Body extends TObject>(operation: SendOperation<Body>): ChainOperation {
  return { registerWith: (registrar) => registrar.send(operation) };
}

export function buildOperation<Body extends TObject, Data extends TSchema>(
  operation: BuildOperation<Body, Data>,
): ChainOperation {
  return { registerWith: (registrar) => registrar.build(operation) };
}

export function broadcastOperation<Body extends TSchema>(
  operation: BroadcastOperation<Body>,
): ChainOperation {
  return { registerWith: (registrar) => registrar.broadcast(operation) };
}

export function familyOperation<
  Params extends TObject,
  Query extends TObject,
  Body extends TObject,
  Data extends TSchema,
>(operation: FamilyOperation<Params, Query, Body, Data>): ChainOperation {
  return { registerWith: (registrar) => registrar.own(operation) };
}

/** How a family's keys go in and out of custody: the import and export routes are shared. */
export interface KeyForms {
  /** What `POST addresses/import` takes as `privatekey`, in the family's forms. */
  privateKey: TString;
  importDescription: string;
  exportDescription: string;
  /** The exported key's description in the answer (`WIF`). */
  exportedKeyDescription?: string;
  /** The stored key (hex) as the family's wallets import it, for the address it signs for. */
  exportedKey(privateKeyHex: string, address: string): string;
}
