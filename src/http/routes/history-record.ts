import { Type } from '@sinclair/typebox';

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** One entry of `GET {chain}/transactions`: what was sent through the gateway, as Chaingateway lists it. */
export const HistoryRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.String(),
  blockchain: Type.String(),
  network: Type.String(),
  type: Type.String(),
  txid: Nullable(Type.String()),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  contractaddress: Nullable(Type.String()),
  amount: Nullable(Type.String()),
  tokenid: Nullable(Type.String()),
  responseJson: Type.Unknown(),
  httpStatus: Nullable(Type.Integer()),
  created_at: Type.String(),
  updated_at: Type.String(),
});
