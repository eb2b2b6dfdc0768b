import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api.ts';
import { useSession } from '../session.ts';
import { ErrorBanner } from './ErrorBanner.tsx';
import { CheckField, Field, SelectField } from './Field.tsx';

/** A webhook as GET /api/v2/{chain}/webhooks lists it. */
export interface Webhook {
  id: string;
  url: string;
  from: string | null;
  to: string | null;
  contractaddress: string | null;
  token_id: string | null;
  comment: string | null;
  type: string | null;
  confirmations: number;
  notify_reverted: boolean;
  notify_pending: boolean;
  retry: string;
  is_active: boolean;
  is_invalid: boolean;
  invalid_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** The body of POST and PUT: every field as text, empty meaning not given (the gateway reads them so). */
export interface WebhookBody {
  url: string;
  to: string;
  from: string;
  contractaddress: string;
  token_id: string;
  comment: string;
  type: string;
  confirmations: string;
  retry: string;
  notify_reverted: boolean;
  notify_pending: boolean;
}

export function bodyOf(webhook: Webhook | null): WebhookBody {
  return {
    url: webhook?.url ?? '',
    to: webhook?.to ?? '',
    from: webhook?.from ?? '',
    contractaddress: webhook?.contractaddress ?? '',
    token_id: webhook?.token_id ?? '',
    comment: webhook?.comment ?? '',
    type: webhook?.type ?? '',
    confirmations: String(webhook?.confirmations ?? 0),
    retry: webhook?.retry ?? 'none',
    notify_reverted: webhook?.notify_reverted ?? false,
    notify_pending: webhook?.notify_pending ?? false,
  };
}

/** Create or edit a webhook; the gateway validates every field and its errors show beside them. */
export function WebhookForm(props: {
  chain: string;
  initial: Webhook | null;
  onSubmit: (body: WebhookBody) => Promise<void>;
  onCancel: () => void;
}) {
  const session = useSession();
  const [body, setBody] = useState<WebhookBody>(() => bodyOf(props.initial));
  const [error, setError] = useState<ApiError | null>(null);
  const [other, setOther] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const types = session?.webhook_types[props.chain] ?? [];
  // The API takes notify_pending only on chains with a mempool (it answers 422 elsewhere).
  const pendingAllowed = session?.pending_chains.includes(props.chain) ?? false;
  // And a comment filter only where transfers carry comments (TON).
  const commentAllowed = session?.comment_chains.includes(props.chain) ?? false;
  const set =
    <K extends keyof WebhookBody>(key: K) =>
    (value: WebhookBody[K]) =>
      setBody((current) => ({ ...current, [key]: value }));
  const fieldError = (field: string) => error?.fieldMessage(field);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setOther(null);
    try {
      await props.onSubmit(body);
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught);
      else setOther(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  const editing = props.initial !== null;
  return (
    <form onSubmit={submit} class="webhook-form" aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">{editing ? 'Edit webhook' : 'New webhook'}</h2>
      <ErrorBanner message={error ? error.message : other} />
      <Field
        label="URL"
        type="url"
        value={body.url}
        onInput={set('url')}
        required
        placeholder="https://example.com/hooks/switchyard"
        hint="Receives a signed POST for each matching transfer."
        error={fieldError('url')}
      />
      <fieldset>
        <legend>Filter (at least one)</legend>
        <Field label="To" value={body.to} onInput={set('to')} spellcheck={false} error={fieldError('to')} />
        <Field
          label="From"
          value={body.from}
          onInput={set('from')}
          spellcheck={false}
          error={fieldError('from')}
        />
        <Field
          label="Token contract"
          value={body.contractaddress}
          onInput={set('contractaddress')}
          spellcheck={false}
          error={fieldError('contractaddress')}
        />
        <Field
          label="Token id"
          value={body.token_id}
          onInput={set('token_id')}
          error={fieldError('token_id')}
        />
        {commentAllowed && (
          <Field
            label="Comment"
            value={body.comment}
            onInput={set('comment')}
            hint="Only transfers carrying exactly this comment."
            error={fieldError('comment')}
          />
        )}
      </fieldset>
      <fieldset>
        <legend>Options</legend>
        <SelectField
          label="Type"
          value={body.type}
          onChange={set('type')}
          options={[
            { value: '', label: 'Every type' },
            ...types.map((type) => ({ value: type, label: type })),
          ]}
          hint={`The transfers ${props.chain} webhooks can filter on.`}
          error={fieldError('type')}
        />
        <Field
          label="Confirmations"
          type="number"
          min={0}
          value={body.confirmations}
          onInput={set('confirmations')}
          hint="Blocks deep before notifying; 0 notifies on inclusion."
          error={fieldError('confirmations')}
        />
        <SelectField
          label="Retry"
          value={body.retry}
          onChange={set('retry')}
          options={[
            { value: 'none', label: 'None (retry by hand)' },
            { value: 'backoff', label: 'Backoff (automatic)' },
          ]}
          hint={
            body.retry === 'backoff'
              ? 'A failed notification is sent again on its own, from 5 s up to 10 h apart.'
              : 'A failed notification waits until you retry it on the Notifications page.'
          }
          error={fieldError('retry')}
        />
        <CheckField
          label="Also notify when a notified transfer is reverted by a reorg"
          checked={body.notify_reverted}
          onChange={set('notify_reverted')}
        />
        {pendingAllowed && (
          <CheckField
            label="Also notify when a transfer is first seen unconfirmed (in the mempool)"
            checked={body.notify_pending}
            onChange={set('notify_pending')}
          />
        )}
      </fieldset>
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save webhook' : 'Create webhook'}
        </button>
      </div>
    </form>
  );
}
