import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Paged } from '../api.ts';
import { ChainPicker, chainName } from '../components/ChainPicker.tsx';
import { DeliveryHealthChart, type DeliveryHour } from '../components/Charts.tsx';
import { type Column, DataTable, Pager } from '../components/DataTable.tsx';
import { ErrorBanner, Notice } from '../components/ErrorBanner.tsx';
import { formatDate, shorten, trimAmount } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';
import type { Network } from '../network.ts';
import { href, navigate } from '../router.ts';

interface Notification {
  id: string;
  webhook_id: string;
  event: string;
  txid: string;
  type: string;
  to: string | null;
  /** The exact literal the receiver got (kept as text by the API client). */
  amount: string;
  status: string;
  url: string;
  attempts: number;
  response_status: number | null;
  response: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

/** The receiver's last answer: its HTTP status, or why there was none (refused, timed out, no such host). */
function LastAnswer({ row }: { row: Notification }) {
  if (row.response_status !== null) return <span title={row.response ?? ''}>HTTP {row.response_status}</span>;
  if (row.response) return <span class="answer-error">{row.response}</span>;
  return <>—</>;
}

/** What became of the notification retried last: under way, delivered, or failed again (and why). */
function RetryOutcome({ notification }: { notification: Notification | null }) {
  if (notification === null) return <Notice message={null} />;
  const which = `Notification for ${shorten(notification.txid)}`;
  if (notification.status === 'delivered') return <Notice message={`${which} delivered.`} />;
  if (notification.status === 'failed') {
    const why =
      notification.response_status !== null
        ? `HTTP ${notification.response_status}`
        : (notification.response ?? 'no answer');
    return <ErrorBanner message={`${which} failed again: ${why}.`} />;
  }
  return <Notice message={`${which} queued for delivery…`} />;
}

/** A delivery still under way: the page looks again shortly until it settles. */
const IN_FLIGHT = new Set(['pending', 'delivering']);
const POLL_MS = 1500;

/** Notifications of one chain: the failed ones first, each with Retry, then every one with its state. */
export function NotificationsPage(props: {
  chain: string;
  chains: string[];
  network: Network;
  page: number;
}) {
  useTitle('Notifications');
  const { chain, page } = props;
  const base = `/api/v2/${encodeURIComponent(chain)}/webhooks/notifications`;
  const lists = useLoad(async () => {
    // Every notification first, then the failed ones: a delivery that settles between the two reads is
    // then either still under way in the first (and read again) or among the failed in the second.
    const all = await api.page<Notification>(base, page);
    const [failed, stats] = await Promise.all([
      api.page<Notification>(`${base}/failed`, 1),
      api.get<{ buckets: DeliveryHour[] }>(`/api/webhooks/stats?hours=24&chain=${encodeURIComponent(chain)}`),
    ]);
    return { failed, all, health: stats.buckets };
  }, [base, page]);
  const [error, setError] = useState<string | null>(null);
  const [retried, setRetried] = useState<Notification | null>(null);
  const [retrying, setRetrying] = useState<string | null>(null);

  const rows = [...(lists.data?.failed.data ?? []), ...(lists.data?.all.data ?? [])];
  const inFlight = rows.some((row) => IN_FLIGHT.has(row.status));
  // The banner after a Retry says what became of that notification, as the page last read it.
  const retriedNow = retried ? (rows.find((row) => row.id === retried.id) ?? retried) : null;
  useEffect(() => {
    if (!inFlight || lists.loading) return;
    const timer = setTimeout(() => void lists.reload(), POLL_MS);
    return () => clearTimeout(timer);
  }, [inFlight, lists.loading, lists.data, lists.reload]);

  const retry = async (notification: Notification) => {
    setRetrying(notification.id);
    setError(null);
    setRetried(null);
    try {
      await api.post(`${base}/${encodeURIComponent(notification.id)}/retry`);
      setRetried({ ...notification, status: 'pending' });
      await lists.reload();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setRetrying(null);
    }
  };

  const columns = (withRetry: boolean): Column<Notification>[] => [
    {
      header: 'Status',
      cell: (row) => (
        <span class={`badge badge-${row.status}`} data-testid="notification-status">
          {row.status}
        </span>
      ),
    },
    { header: 'Event', cell: (row) => row.event },
    { header: 'Amount', nowrap: true, cell: (row) => `${trimAmount(row.amount)} ${row.type}` },
    { header: 'To', mono: true, cell: (row) => <span title={row.to ?? ''}>{shorten(row.to)}</span> },
    { header: 'Transaction', mono: true, cell: (row) => <span title={row.txid}>{shorten(row.txid)}</span> },
    { header: 'Attempts', cell: (row) => String(row.attempts) },
    {
      header: 'Last answer',
      cell: (row) => <LastAnswer row={row} />,
    },
    {
      header: withRetry ? 'Created' : 'Delivered',
      nowrap: true,
      cell: (row) => formatDate(withRetry ? row.created_at : row.delivered_at),
    },
    ...(withRetry
      ? [
          {
            header: 'Actions',
            sticky: true,
            cell: (row: Notification) => (
              <button
                type="button"
                class="primary"
                disabled={retrying === row.id}
                onClick={() => void retry(row)}
                aria-label={`Retry notification for transaction ${row.txid}`}
              >
                Retry
              </button>
            ),
          },
        ]
      : []),
  ];

  const failed: Paged<Notification> | undefined = lists.data?.failed;
  return (
    <>
      <div class="page-head">
        <h1>Notifications</h1>
        <ChainPicker path="/notifications" chain={chain} chains={props.chains} />
        <button type="button" onClick={() => void lists.reload()} disabled={lists.loading}>
          Refresh
        </button>
      </div>
      <p class="lead">
        What your {chainName(chain)} webhooks sent on {props.network}. A failed notification is not sent again
        on its own (unless its webhook retries with backoff): retry it here once the receiver is fixed.
      </p>
      <ErrorBanner message={error ?? lists.error} />
      <RetryOutcome notification={retriedNow} />
      {lists.data && (
        <section aria-labelledby="health-title">
          <h2 id="health-title">Delivery health</h2>
          <DeliveryHealthChart hours={lists.data.health} />
        </section>
      )}
      {lists.data && failed && (
        <>
          <section aria-labelledby="failed-title">
            <h2 id="failed-title">Failed ({failed.total})</h2>
            <DataTable
              caption="Failed notifications"
              testId="failed-notifications"
              rows={failed.data}
              rowKey={(row) => row.id}
              rowClass={() => 'row-failed'}
              empty="No failed notifications."
              columns={columns(true)}
            />
            {failed.total > failed.data.length && (
              <p class="hint">
                {failed.data.length} of {failed.total} are shown; retry them to see the rest.
              </p>
            )}
          </section>
          <section aria-labelledby="all-title">
            <h2 id="all-title">All notifications ({lists.data.all.total})</h2>
            <DataTable
              caption="All notifications"
              testId="all-notifications"
              rows={lists.data.all.data}
              rowKey={(row) => row.id}
              empty={`No ${chainName(chain)} notifications on ${props.network} yet.`}
              columns={columns(false)}
            />
            <Pager
              page={lists.data.all.current_page}
              lastPage={lists.data.all.last_page}
              onPage={(next) => navigate(href('/notifications', { chain, page: next }))}
            />
          </section>
        </>
      )}
    </>
  );
}
