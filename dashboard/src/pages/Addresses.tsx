import { useState } from 'preact/hooks';
import { ApiError, api, messageOf } from '../api.ts';
import { Balance } from '../components/Balance.tsx';
import { ChainPicker, chainName } from '../components/ChainPicker.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorBanner, Notice } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { formatDate } from '../format.ts';
import { useLoad, useTitle } from '../hooks.ts';
import type { Network } from '../network.ts';

interface Address {
  address: string;
  secured: boolean;
  created_at: string;
}

interface Created {
  address: string;
  privateKey?: string;
}

/** The custodial addresses of one chain on the chosen network, and a new one. */
export function AddressesPage(props: { chain: string; chains: string[]; network: Network }) {
  useTitle('Addresses');
  const { chain } = props;
  const path = `/api/v2/${encodeURIComponent(chain)}/addresses`;
  const list = useLoad(() => api.get<Address[]>(path), [path]);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [other, setOther] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setOther(null);
    setCreated(null);
    try {
      const [address] = await api.post<Created[]>(path, password ? { password } : {});
      setCreated(address ?? null);
      setPassword('');
      await list.reload();
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught);
      else setOther(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div class="page-head">
        <h1>Addresses</h1>
        <ChainPicker path="/addresses" chain={chain} chains={props.chains} />
      </div>
      <p class="lead">
        Your {chainName(chain)} addresses on {props.network}. A password seals each stored key; it is never
        stored itself.
      </p>
      <ErrorBanner message={other ?? list.error} />
      <Notice message={created && !created.privateKey ? `Address ${created.address} created.` : null} />
      {created?.privateKey && (
        <section class="card secret-card" aria-labelledby="key-title">
          <h2 id="key-title">Private key of {created.address}</h2>
          <p>
            Created without a password, so the gateway did not keep its key. Store it now: it will not be
            shown again, and without it the address cannot send.
          </p>
          <div class="secret">
            <code data-testid="new-private-key">{created.privateKey}</code>
            <CopyButton text={created.privateKey} />
          </div>
          <button type="button" onClick={() => setCreated(null)}>
            Done, hide it
          </button>
        </section>
      )}
      <section class="card" aria-labelledby="create-address-title">
        <h2 id="create-address-title">Create an address</h2>
        <form onSubmit={create} class="inline-form">
          <Field
            label="Key password"
            type="password"
            value={password}
            onInput={setPassword}
            autoComplete="new-password"
            hint="Seals the key the gateway stores; needed for every send. Empty: the key is shown once and not kept."
            error={error?.fieldMessage('password') ?? error?.message}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Create address
            </button>
          </div>
        </form>
      </section>
      {list.data && (
        <DataTable
          caption={`${chainName(chain)} addresses`}
          rows={list.data}
          rowKey={(row) => row.address}
          empty={`No ${chainName(chain)} addresses on ${props.network} yet.`}
          columns={[
            {
              header: 'Address',
              mono: true,
              cell: (row) => (
                <>
                  {row.address} <CopyButton text={row.address} />
                </>
              ),
            },
            {
              header: 'Balance',
              nowrap: true,
              cell: (row) => <Balance chain={chain} address={row.address} />,
            },
            {
              header: 'Key',
              cell: (row) => (row.secured ? 'Stored, password protected' : 'Not stored (unsecure)'),
            },
            { header: 'Created', nowrap: true, cell: (row) => formatDate(row.created_at) },
          ]}
        />
      )}
    </>
  );
}
