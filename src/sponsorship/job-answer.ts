import { type Static, Type } from '@sinclair/typebox';
import { formatAmount } from '../chains/amount.ts';
import type { SponsorJob } from './sponsor-jobs.ts';

const Text = Type.String();
const Maybe = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** A sponsored job as the paymaster and sweep routes answer it, and as its callback tells it. */
export const SponsorJobAnswer = Type.Object({
  id: Type.String({ description: 'The job id.' }),
  type: Type.String({ description: 'What moves, in the chain’s words (TRX, TRC20, ERC20, SPL ...).' }),
  from: Text,
  to: Text,
  contractaddress: Maybe('The token contract (mint); null for the coin and TRC10 tokens.'),
  tokenid: Maybe('The TRC10 token id or the NFT id; null otherwise.'),
  amount: Type.String({ description: 'In the asset’s units, as decimal text.' }),
  status: Type.String({
    description:
      '`pending`, `processing` (paying the fee and waiting for the transfer), `completed` (with `txid`), or `failed - <reason>`.',
  }),
  txid: Maybe('The transfer’s transaction id, once known.'),
  paymaster_fee: Type.String({
    description: 'What the sponsor has spent on it so far, in the chain’s coin (every transaction counted).',
  }),
  fee_symbol: Type.String({ description: 'The coin `paymaster_fee` is in.' }),
  left_over: Maybe(
    'What the sender kept of a top-up its transfer’s gas did not use (EVM), in the coin; null elsewhere.',
  ),
  callback_url: Maybe('Where the job’s end is POSTed, signed.'),
  created_at: Text,
  updated_at: Text,
});
export type SponsorJobAnswer = Static<typeof SponsorJobAnswer>;

/** The answer for `job`, whose sponsor spent `spent` base units of the coin so far. */
export function sponsorJobAnswer(
  job: SponsorJob,
  spent: bigint,
  coin: { decimals: number; symbol: string },
): SponsorJobAnswer {
  const { transfer } = job;
  return {
    id: job.id,
    type: transfer.type,
    from: transfer.from,
    to: transfer.to,
    contractaddress: transfer.contract,
    tokenid: transfer.tokenId,
    amount: formatAmount(BigInt(transfer.units), transfer.decimals),
    status: job.status === 'failed' ? `failed - ${job.reason ?? 'unknown'}` : job.status,
    txid: job.txid,
    paymaster_fee: formatAmount(spent, coin.decimals),
    fee_symbol: coin.symbol,
    left_over: job.notes['left_over'] ?? null,
    callback_url: job.callbackUrl,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}
