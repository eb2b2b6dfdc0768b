import { api } from '../api.ts';
import { type RequestDay, RequestUsageChart } from '../components/Charts.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { QuotaBar } from '../components/QuotaBar.tsx';
import { PaymasterJobsCard, type SponsoredFee, SponsoredFeesCard } from '../components/SponsoredFees.tsx';
import { formatDate } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';
import type { Network } from '../network.ts';

type Quotas = {
  webhooks: number | null;
  addresses: number | null;
  requests: number | null;
  transactions: number | null;
};

interface AccountInfo {
  plan: string;
  is_subscribed: string;
  is_yearly: number;
  ends_at: string | null;
  quota_reset: string | null;
  status: string;
  payment_method: string | null;
  crypto_payment: {
    currency: string | null;
    address: string | null;
    eur_amount: string | null;
    crypto_amount: string | null;
    qr_code: string | null;
  };
  quotas_left: Quotas;
  sponsored_fees: SponsoredFee[];
}

interface RequestUsage {
  quota: number | null;
  period_start: string;
  days: RequestDay[];
}

interface Plan {
  name: string;
  period: string;
  quotas: Quotas;
}

const QUOTAS: readonly { key: keyof Quotas; label: string }[] = [
  { key: 'requests', label: 'Requests' },
  { key: 'transactions', label: 'Transactions' },
  { key: 'addresses', label: 'Addresses' },
  { key: 'webhooks', label: 'Webhooks' },
];

const STATUS_TEXT: Record<string, string> = {
  cancelled: 'Cancelled: access runs until the end date',
  expired: 'Expired: access runs on through the grace period, then stops',
};

/**
 * The plan, its lifecycle, what is left of each quota, the allowance of sponsored fees and the payment
 * details, as GET /api/account says, and the paymaster requests of one chain.
 */
export function AccountPage(props: { chains: string[]; network: Network }) {
  useTitle('Account');
  const { data, error, loading, reload } = useLoad(async () => {
    const [account, plan, usage] = await Promise.all([
      api.get<AccountInfo>('/api/account'),
      api.get<Plan>('/api/account/plan'),
      api.get<RequestUsage>('/api/account/usage?days=30'),
    ]);
    return { account, plan, usage };
  }, []);

  return (
    <>
      <div class="page-head">
        <h1>Account</h1>
        <button type="button" onClick={() => void reload()} disabled={loading}>
          Refresh
        </button>
      </div>
      <ErrorBanner message={error} />
      {!data && loading && <p aria-live="polite">Loading…</p>}
      {data && (
        <AccountDetails
          account={data.account}
          plan={data.plan}
          usage={data.usage}
          chains={props.chains}
          network={props.network}
        />
      )}
    </>
  );
}

function AccountDetails({
  account,
  plan,
  usage,
  chains,
  network,
}: {
  account: AccountInfo;
  plan: Plan;
  usage: RequestUsage;
  chains: string[];
  network: Network;
}) {
  const payment = account.crypto_payment;
  return (
    <div class="grid">
      <section class="card" aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        <dl class="facts">
          <dt>Plan</dt>
          <dd data-testid="plan-name">{account.plan}</dd>
          <dt>Status</dt>
          <dd>
            <span class={`badge badge-${account.status}`}>{account.status}</span>{' '}
            <span class="hint">{STATUS_TEXT[account.status] ?? ''}</span>
          </dd>
          <dt>Access</dt>
          <dd>{account.is_subscribed === 'true' ? 'Yes' : 'No (the API answers 402)'}</dd>
          <dt>Billing</dt>
          <dd>{account.is_yearly === 1 ? 'Yearly' : 'Monthly or none'}</dd>
          <dt>Period ends</dt>
          <dd>{account.ends_at ? formatDate(account.ends_at) : 'Open-ended'}</dd>
          <dt>Quotas reset</dt>
          <dd>
            {formatDate(account.quota_reset)} (every {plan.period})
          </dd>
        </dl>
      </section>

      <section class="card" aria-labelledby="quotas-title">
        <h2 id="quotas-title">Left this {plan.period}</h2>
        {QUOTAS.map(({ key, label }) => (
          <QuotaBar key={key} name={label} left={account.quotas_left[key]} total={plan.quotas[key]} />
        ))}
        <p class="hint">
          Every API call uses one request, the dashboard's own included. Addresses and webhooks count while
          they exist.
        </p>
      </section>

      <section class="card card-wide" aria-labelledby="usage-title">
        <h2 id="usage-title">Requests per day</h2>
        <RequestUsageChart days={usage.days} quota={usage.quota} periodStart={usage.period_start} />
        <p class="hint">
          Bars: requests each day (UTC), the last 30 days. Line: what this {plan.period} has used so far
          {usage.quota === null ? '.' : '; dashed: its quota.'}
        </p>
      </section>

      <section class="card" aria-labelledby="payment-title">
        <h2 id="payment-title">Payment</h2>
        <dl class="facts">
          <dt>Method</dt>
          <dd>{account.payment_method ?? 'None on file'}</dd>
          {payment.currency && (
            <>
              <dt>Currency</dt>
              <dd>{payment.currency}</dd>
            </>
          )}
          {payment.address && (
            <>
              <dt>Pay to</dt>
              <dd class="mono">
                {payment.address} <CopyButton text={payment.address} />
              </dd>
            </>
          )}
          {payment.eur_amount && (
            <>
              <dt>Amount (EUR)</dt>
              <dd>{payment.eur_amount}</dd>
            </>
          )}
          {payment.crypto_amount && (
            <>
              <dt>Amount ({payment.currency ?? 'crypto'})</dt>
              <dd>{payment.crypto_amount}</dd>
            </>
          )}
          {payment.qr_code && (
            <>
              <dt>QR code</dt>
              <dd class="mono">{payment.qr_code}</dd>
            </>
          )}
        </dl>
      </section>
      <SponsoredFeesCard fees={account.sponsored_fees} />
      <PaymasterJobsCard chains={chains} fees={account.sponsored_fees} network={network} />
    </div>
  );
}
