import { useState } from 'preact/hooks';
import { ApiError, api, messageOf } from '../api.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorBanner, Notice } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { formatDate } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';

interface Token {
  id: string;
  prefix: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * API tokens: the live ones, a new one (its secret shown once, in this page's memory only: it is gone when
 * the page is left) and revocation.
 */
export function TokensPage() {
  useTitle('API tokens');
  const tokens = useLoad(() => api.get<Token[]>('/api/account/tokens'), []);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<ApiError | null>(null);
  const [otherError, setOtherError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<(Token & { token: string }) | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setCreateError(null);
    setOtherError(null);
    setNotice(null);
    try {
      const token = await api.post<Token & { token: string }>('/api/account/tokens', { name: name.trim() });
      setCreated(token);
      setName('');
      await tokens.reload();
    } catch (caught) {
      if (caught instanceof ApiError) setCreateError(caught);
      else setOtherError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (token: Token) => {
    setRevoking(null);
    setOtherError(null);
    try {
      await api.delete(`/api/account/tokens/${encodeURIComponent(token.id)}`);
      if (created?.id === token.id) setCreated(null);
      setNotice(`Token “${token.name}” revoked: it no longer works.`);
      await tokens.reload();
    } catch (caught) {
      setOtherError(messageOf(caught));
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>API tokens</h1>
      </div>
      <p class="lead">
        Send a token as <code>Authorization: Bearer &lt;token&gt;</code>. Only its first characters are kept
        visible here; the whole token is shown once, when it is created.
      </p>
      <ErrorBanner message={otherError ?? tokens.error} />
      <Notice message={notice} />

      {created && (
        <section class="card secret-card" aria-labelledby="new-token-title">
          <h2 id="new-token-title">New token “{created.name}”</h2>
          <p>Copy it now: it will not be shown again.</p>
          <div class="secret">
            <code data-testid="new-token">{created.token}</code>
            <CopyButton text={created.token} />
          </div>
          <button type="button" onClick={() => setCreated(null)}>
            Done, hide it
          </button>
        </section>
      )}

      <section class="card" aria-labelledby="create-token-title">
        <h2 id="create-token-title">Create a token</h2>
        <form onSubmit={create} class="inline-form">
          <Field
            label="Token name"
            value={name}
            onInput={setName}
            required
            hint="What uses it, e.g. “billing server”. 1 to 64 characters."
            error={createError?.fieldMessage('name') ?? createError?.message}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Create token
            </button>
          </div>
        </form>
      </section>

      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">Live tokens</h2>
        {tokens.data && (
          <DataTable
            caption="Live API tokens"
            testId="tokens-table"
            rows={tokens.data}
            rowKey={(token) => token.id}
            empty="No live tokens. Create one above."
            columns={[
              { header: 'Name', cell: (token) => token.name },
              { header: 'Prefix', cell: (token) => <code>{token.prefix}…</code> },
              { header: 'Created', cell: (token) => formatDate(token.created_at) },
              {
                header: 'Last used',
                cell: (token) => (token.last_used_at ? formatDate(token.last_used_at) : 'Never'),
              },
              {
                header: 'Actions',
                cell: (token) => (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => setRevoking(token)}
                    aria-label={`Revoke token ${token.name}`}
                  >
                    Revoke
                  </button>
                ),
              },
            ]}
          />
        )}
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this token?"
        message={`“${revoking?.name ?? ''}” (${revoking?.prefix ?? ''}…) stops working at once. Anything that uses it gets 401.`}
        confirmLabel="Revoke"
        danger
        onConfirm={() => revoking && void revoke(revoking)}
        onCancel={() => setRevoking(null)}
      />
    </>
  );
}
