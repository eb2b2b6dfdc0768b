import { useState } from 'preact/hooks';
import { api, messageOf } from '../api.ts';
import { ChainPicker, chainName } from '../components/ChainPicker.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorBanner, Notice } from '../components/ErrorBanner.tsx';
import { type Webhook, type WebhookBody, WebhookForm } from '../components/WebhookForm.tsx';
import { formatDate, shorten } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';
import type { Network } from '../network.ts';

interface ShownSecret {
  webhook: string;
  secret: string;
  why: 'created' | 'shown' | 'rotated';
  previousValidUntil?: string;
}

type Confirm = { kind: 'delete' | 'rotate'; webhook: Webhook } | null;

/** What the API takes: the options as the form holds them, notify_pending only when asked for. */
function payload(body: WebhookBody): Record<string, unknown> {
  const { notify_pending, ...rest } = body;
  return { ...rest, ...(notify_pending ? { notify_pending: true } : {}) };
}

function filters(webhook: Webhook): string {
  const parts = [
    webhook.to && `to ${shorten(webhook.to, 8)}`,
    webhook.from && `from ${shorten(webhook.from, 8)}`,
    webhook.contractaddress && `token ${shorten(webhook.contractaddress, 8)}`,
    webhook.token_id && `id ${webhook.token_id}`,
    webhook.type && `type ${webhook.type}`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** Webhooks of one chain on the chosen network: create, edit, delete, show and rotate the signing secret. */
export function WebhooksPage(props: { chain: string; chains: string[]; network: Network }) {
  useTitle('Webhooks');
  const { chain } = props;
  const base = `/api/v2/${encodeURIComponent(chain)}/webhooks`;
  const list = useLoad(() => api.get<Webhook[]>(base), [base]);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const act = async (work: () => Promise<void>) => {
    setError(null);
    setNotice(null);
    try {
      await work();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const save = async (body: WebhookBody) => {
    if (editing === 'new') {
      const created = await api.post<{ webhook: string; secret: string }>(base, payload(body));
      setSecret({ webhook: created.webhook, secret: created.secret, why: 'created' });
      setNotice('Webhook created.');
    } else if (editing) {
      await api.put<Webhook>(`${base}/${encodeURIComponent(editing.id)}`, payload(body));
      setNotice('Webhook saved.');
    }
    setEditing(null);
    await list.reload();
  };

  const showSecret = (webhook: Webhook) =>
    act(async () => {
      const shown = await api.get<{ secret: string }>(`${base}/${encodeURIComponent(webhook.id)}/secret`);
      setSecret({ webhook: webhook.id, secret: shown.secret, why: 'shown' });
    });

  const confirmed = (chosen: NonNullable<Confirm>) =>
    act(async () => {
      setConfirm(null);
      const path = `${base}/${encodeURIComponent(chosen.webhook.id)}`;
      if (chosen.kind === 'delete') {
        await api.delete(path);
        if (secret?.webhook === chosen.webhook.id) setSecret(null);
        setNotice('Webhook deleted.');
        await list.reload();
      } else {
        const rotated = await api.post<{
          webhook: string;
          secret: string;
          previous_secret_valid_until: string;
        }>(`${path}/rotate-secret`);
        setSecret({
          webhook: rotated.webhook,
          secret: rotated.secret,
          why: 'rotated',
          previousValidUntil: rotated.previous_secret_valid_until,
        });
      }
    });

  const secretOf = secret && list.data?.find((webhook) => webhook.id === secret.webhook);
  return (
    <>
      <div class="page-head">
        <h1>Webhooks</h1>
        <ChainPicker path="/webhooks" chain={chain} chains={props.chains} />
      </div>
      <p class="lead">
        {chainName(chain)} transfers on {props.network} that match a webhook's filter are POSTed to its URL,
        signed with its secret.
      </p>
      <ErrorBanner message={error ?? list.error} />
      <Notice message={notice} />

      {secret && (
        <section class="card secret-card" aria-labelledby="secret-title">
          <h2 id="secret-title">Signing secret{secretOf ? ` of the webhook to ${secretOf.url}` : ''}</h2>
          <p>
            {secret.why === 'created' && 'The new webhook signs with this secret. '}
            {secret.why === 'rotated' &&
              `New secret. The previous one keeps signing beside it until ${formatDate(secret.previousValidUntil)}. `}
            Verify <code>webhook-signature</code> and <code>X-Signature</code> with it.
          </p>
          <div class="secret">
            <code data-testid="webhook-secret">{secret.secret}</code>
            <CopyButton text={secret.secret} />
          </div>
          <button type="button" onClick={() => setSecret(null)}>
            Hide secret
          </button>
        </section>
      )}

      {editing ? (
        <section class="card">
          <WebhookForm
            key={editing === 'new' ? 'new' : editing.id}
            chain={chain}
            initial={editing === 'new' ? null : editing}
            onSubmit={save}
            onCancel={() => setEditing(null)}
          />
        </section>
      ) : (
        <div class="actions start">
          <button type="button" class="primary" onClick={() => setEditing('new')}>
            New webhook
          </button>
        </div>
      )}

      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Your {chainName(chain)} webhooks</h2>
        {list.data && (
          <DataTable
            caption={`${chainName(chain)} webhooks`}
            testId="webhooks-table"
            rows={list.data}
            rowKey={(row) => row.id}
            empty={`No ${chainName(chain)} webhooks on ${props.network} yet.`}
            columns={[
              { header: 'URL', mono: true, cell: (row) => row.url },
              { header: 'Filter', cell: (row) => filters(row) || '—' },
              { header: 'Confirmations', cell: (row) => String(row.confirmations) },
              { header: 'Retry', cell: (row) => row.retry },
              {
                header: 'State',
                cell: (row) =>
                  row.is_active ? (
                    <span class="badge badge-active">active</span>
                  ) : (
                    <span class="badge badge-failed" title={row.invalid_reason ?? ''}>
                      disabled{row.invalid_reason ? `: ${row.invalid_reason}` : ''}
                    </span>
                  ),
              },
              { header: 'Updated', cell: (row) => formatDate(row.updated_at) },
              {
                header: 'Actions',
                cell: (row) => (
                  <div class="row-actions">
                    <button
                      type="button"
                      onClick={() => setEditing(row)}
                      aria-label={`Edit webhook to ${row.url}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      onClick={() => void showSecret(row)}
                      aria-label={`Show secret of webhook to ${row.url}`}
                    >
                      Show secret
                    </button>
                    <button
                      type="button"
                      onClick={() => setConfirm({ kind: 'rotate', webhook: row })}
                      aria-label={`Rotate secret of webhook to ${row.url}`}
                    >
                      Rotate secret
                    </button>
                    <button
                      type="button"
                      class="danger"
                      onClick={() => setConfirm({ kind: 'delete', webhook: row })}
                      aria-label={`Delete webhook to ${row.url}`}
                    >
                      Delete
                    </button>
                  </div>
                ),
              },
            ]}
          />
        )}
      </section>

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.kind === 'delete' ? 'Delete this webhook?' : 'Rotate the signing secret?'}
        message={
          confirm?.kind === 'delete'
            ? `Notifications to ${confirm.webhook.url} stop. This frees one webhook of your quota.`
            : 'A new secret signs from now on; the current one keeps signing beside it for 24 hours.'
        }
        confirmLabel={confirm?.kind === 'delete' ? 'Delete' : 'Rotate'}
        danger={confirm?.kind === 'delete'}
        onConfirm={() => confirm && void confirmed(confirm)}
        onCancel={() => setConfirm(null)}
      />
    </>
  );
}
