/** The fields of each Tron transfer, as its send takes them with `password` / `privatekey` and its build without. */
import { Type } from '@sinclair/typebox';
import { Amount, FeeLimit, Trc10TokenId, Trc721TokenId, TronAddress, TronAnyAddress } from '../schemas.ts';

export const TrxTransfer = { from: TronAddress, to: TronAddress, amount: Amount };

export const Trc10Transfer = { from: TronAddress, to: TronAddress, tokenId: Trc10TokenId, amount: Amount };

export const Trc20Transfer = {
  from: TronAddress,
  to: TronAddress,
  contractaddress: TronAnyAddress,
  amount: Amount,
  fee_limit: FeeLimit,
};

/** `amount` is accepted and ignored: one token moves. */
export const Trc721Transfer = {
  from: TronAddress,
  to: TronAddress,
  contractaddress: TronAnyAddress,
  tokenid: Trc721TokenId,
  amount: Type.Optional(Amount),
  fee_limit: FeeLimit,
};
