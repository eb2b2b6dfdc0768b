import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { formatDate, shorten } from '../format.ts';
import { useLoad } from '../hooks.ts';
import type { Network } from '../network.ts';
import { chainName } from './ChainPicker.tsx';
import { DataTable } from './DataTable.tsx';
import { ErrorBanner } from './ErrorBanner.tsx';
import { SelectField } from './Field.tsx';

/** One row of GET /api/account's `sponsored_fees`: amounts as the gateway's decimal text in `symbol`. */
export interface SponsoredFee {
  chain: string;
  network: string;
  symbol: string;
  allowance: string;
  spent: string;
  left: string;
}

/** A paymaster request as GET /api/v2/{chain}/paymaster answers it. */
interface PaymasterJob {
  id: string;
  type: string;
  from: string;
  to: string;
  amount: string;
  status: string;
  txid: string | null;
  paymaster_fee: string;
  fee_symbol: string;
  created_at: string;
}

/** What the plan lets the gateway's sponsors pay for this user, per chain and network. */
export function SponsoredFeesCard({ fees }: { fees: SponsoredFee[] }) {
  return (
    <section class="card" aria-labelledby="sponsored-title">
      <h2 id="sponsored-title">Sponsored fees</h2>
      <DataTable
        caption="Sponsored fees allowance"
        testId="sponsored-fees"
        rows={fees}
        rowKey={(row) => `${row.chain}-${row.network}`}
        empty="Your plan has no allowance of sponsored fees."
        columns={[
          { header: 'Chain', cell: (row) => `${chainName(row.chain)} ${row.network}` },
          { header: 'Allowance', cell: (row) => `${row.allowance} ${row.symbol}` },
          { header: 'Spent', cell: (row) => `${row.spent} ${row.symbol}` },
          { header: 'Left', cell: (row) => `${row.left} ${row.symbol}` },
        ]}
      />
      <p class="hint">
        Fees the gateway's sponsors pay for your paymaster requests, sweeps and activations, per quota period.
        Spent includes what is held for requests still running.
      </p>
    </section>
  );
}

/**
 * The user's paymaster requests on one chain of the chosen network, newest first (the first page): the
 * chain the plan sponsors first, any other chosen in the select.
 */
export function PaymasterJobsCard(props: { chains: string[]; fees: SponsoredFee[]; network: Network }) {
  const sponsored = props.fees.find((fee) => fee.network === props.network)?.chain;
  const [chain, setChain] = useState(sponsored ?? props.chains[0] ?? '');
  const jobs = useLoad(
    () => api.page<PaymasterJob>(`/api/v2/${encodeURIComponent(chain)}/paymaster`, 1),
    [chain],
  );
  return (
    <section class="card card-wide" aria-labelledby="paymaster-title">
      <div class="page-head">
        <h2 id="paymaster-title">Paymaster requests</h2>
        <SelectField
          compact
          label="Chain"
          name="paymaster-chain"
          value={chain}
          options={props.chains.map((value) => ({ value, label: chainName(value) }))}
          onChange={setChain}
        />
      </div>
      <ErrorBanner message={jobs.error} />
      {!jobs.data && jobs.loading && <p aria-live="polite">Loading…</p>}
      {jobs.data && (
        <DataTable
          caption={`${chainName(chain)} paymaster requests`}
          testId="paymaster-jobs"
          rows={jobs.data.data}
          rowKey={(row) => row.id}
          empty="No paymaster requests yet"
          rowClass={(row) => (row.status.startsWith('failed') ? 'row-failed' : undefined)}
          columns={[
            { header: 'When', cell: (row) => formatDate(row.created_at) },
            { header: 'Id', mono: true, cell: (row) => <span title={row.id}>{shorten(row.id, 6)}</span> },
            { header: 'Type', cell: (row) => row.type },
            { header: 'From', mono: true, cell: (row) => <span title={row.from}>{shorten(row.from)}</span> },
            { header: 'To', mono: true, cell: (row) => <span title={row.to}>{shorten(row.to)}</span> },
            { header: 'Amount', cell: (row) => row.amount },
            { header: 'Status', cell: (row) => row.status },
            {
              header: 'Transaction',
              mono: true,
              cell: (row) => <span title={row.txid ?? ''}>{shorten(row.txid)}</span>,
            },
            { header: 'Fee paid', cell: (row) => `${row.paymaster_fee} ${row.fee_symbol}` },
          ]}
        />
      )}
    </section>
  );
}
