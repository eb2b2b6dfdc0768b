import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api.ts';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { useTitle } from '../hooks.ts';
import { href } from '../router.ts';
import { type Session, signUp } from '../session.ts';

/** A new account (when the gateway's configuration opens sign-up); it is signed in at once. */
export function SignUpPage({ session }: { session: Session }) {
  useTitle('Create an account');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [other, setOther] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (!session.signup_open) {
    return (
      <section aria-labelledby="sign-up-title" class="card">
        <h1 id="sign-up-title">Create an account</h1>
        <p>Sign-up is closed on this gateway. Ask its operator for an account.</p>
        <p>
          <a href={href('/sign-in')}>Sign in</a>
        </p>
      </section>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setOther(null);
    try {
      await signUp(email.trim(), password);
    } catch (caught) {
      if (caught instanceof ApiError) setError(caught);
      else setOther(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="sign-up-title" class="card">
      <h1 id="sign-up-title">Create an account</h1>
      <ErrorBanner message={error?.message ?? other} />
      <form onSubmit={submit}>
        <Field
          label="Email"
          type="email"
          value={email}
          onInput={setEmail}
          required
          autoComplete="username"
          error={error?.fieldMessage('email')}
        />
        <Field
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          required
          autoComplete="new-password"
          hint="12 to 1024 characters."
          error={error?.fieldMessage('password')}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create account'}
          </button>
        </div>
      </form>
      <p>
        Already have an account? <a href={href('/sign-in')}>Sign in</a>
      </p>
    </section>
  );
}
