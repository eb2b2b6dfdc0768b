import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api.ts';
import { ErrorBanner } from '../components/ErrorBanner.tsx';
import { Field } from '../components/Field.tsx';
import { useTitle } from '../hooks.ts';
import { href } from '../router.ts';
import { type Session, signIn } from '../session.ts';

/** Email and password; the gateway sets the session cookie. Wrong passwords count toward a lockout. */
export function SignInPage({ session }: { session: Session }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(email.trim(), password);
    } catch (caught) {
      setError(messageOf(caught));
      if (caught instanceof ApiError && caught.status === 401) setPassword('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="sign-in-title" class="card">
      <h1 id="sign-in-title">Sign in</h1>
      <ErrorBanner message={error} />
      <form onSubmit={submit} noValidate={false}>
        <Field label="Email" type="email" value={email} onInput={setEmail} required autoComplete="username" />
        <Field
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          required
          autoComplete="current-password"
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
      {session.signup_open && (
        <p>
          No account yet? <a href={href('/sign-up')}>Create one</a>
        </p>
      )}
    </section>
  );
}
