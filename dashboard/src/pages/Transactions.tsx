import { api } from '../api.ts';
import { ChainPicker, chainName } from '../components/ChainPicker.tsx';
import { DataTable, Pager } from '../components/DataTable.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { formatDate, isWalletSource, shorten, transactionType, trimAmount } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';
import type { Network } from '../network.ts';
import { href, navigate } from '../router.ts';

interface HistoryRecord {
  id: number;
  type: string;
  txid: string | null;
  from: string | null;
  to: string | null;
  contractaddress: string | null;
  amount: string | null;
  tokenid: string | null;
  httpStatus: string | null;
  created_at: string;
}

/** What was sent through the gateway on one chain, newest first (the API's `order=desc`), failures included. */
export function TransactionsPage(props: { chain: string; chains: string[]; network: Network; page: number }) {
  useTitle('Transactions');
  const { chain, page } = props;
  const list = useLoad(
    () => api.page<HistoryRecord>(`/api/v2/${encodeURIComponent(chain)}/transactions?order=desc`, page),
    [chain, page],
  );
  return (
    <>
      <div class="page-head">
        <h1>Transactions</h1>
        <ChainPicker path="/transactions" chain={chain} chains={props.chains} />
      </div>
      <p class="lead">
        What you sent through the gateway on {chainName(chain)} {props.network}, newest first, failures
        included.
      </p>
      <ErrorBanner message={list.error} />
      {list.data && (
        <>
          <DataTable
            caption={`${chainName(chain)} transactions`}
            testId="transactions-table"
            rows={list.data.data}
            rowKey={(row) => String(row.id)}
            empty={`No ${chainName(chain)} transactions on ${props.network} yet.`}
            rowClass={(row) => (row.httpStatus && !row.httpStatus.startsWith('2') ? 'row-failed' : undefined)}
            columns={[
              { header: 'When', nowrap: true, cell: (row) => formatDate(row.created_at) },
              { header: 'Type', cell: (row) => transactionType(chain, row.type) },
              {
                header: 'Amount',
                nowrap: true,
                cell: (row) =>
                  row.amount !== null ? trimAmount(row.amount) : row.tokenid ? `token ${row.tokenid}` : '—',
              },
              {
                header: 'To',
                mono: true,
                cell: (row) => <span title={row.to ?? ''}>{shorten(row.to)}</span>,
              },
              {
                header: 'From',
                cell: (row) =>
                  isWalletSource(chain, row.from) ? (
                    <span class="wallet-source">Wallet {row.from}</span>
                  ) : (
                    <span class="mono" title={row.from ?? ''}>
                      {shorten(row.from)}
                    </span>
                  ),
              },
              {
                header: 'Transaction',
                mono: true,
                cell: (row) => <span title={row.txid ?? ''}>{shorten(row.txid)}</span>,
              },
              { header: 'Answer', cell: (row) => row.httpStatus ?? '—' },
            ]}
          />
          <Pager
            page={list.data.current_page}
            lastPage={list.data.last_page}
            onPage={(next) => navigate(href('/transactions', { chain, page: next }))}
          />
        </>
      )}
    </>
  );
}
