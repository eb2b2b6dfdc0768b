import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf, whenUnauthenticated } from './api.ts';
import { chosenChain } from './components/ChainPicker.tsx';
import { ErrorBanner } from './components/ErrorBanner.tsx';
import { Layout, PublicLayout, useNetwork } from './components/Layout.tsx';
import { AccountPage } from './pages/Account.tsx';
import { AddressesPage } from './pages/Addresses.tsx';
import { NotFoundPage } from './pages/NotFound.tsx';
import { NotificationsPage } from './pages/Notifications.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { SignUpPage } from './pages/SignUp.tsx';
import { TokensPage } from './pages/Tokens.tsx';
import { TransactionsPage } from './pages/Transactions.tsx';
import { WebhooksPage } from './pages/Webhooks.tsx';
import { href, type Location, navigate, useLocation } from './router.ts';
import { loadSession, type Session, sessionEnded, signOut, useSession } from './session.ts';

const PUBLIC = new Set(['/sign-in', '/sign-up']);

/** Where to go after signing in: the page asked for before, if it is a dashboard page. */
function nextOf(location: Location): string {
  const next = location.query.get('next');
  return next?.startsWith('/') && !next.startsWith('//') && !PUBLIC.has(next) ? next : '/';
}

function SignedInPage({ location, session }: { location: Location; session: Session }) {
  const network = useNetwork();
  const chain = chosenChain(location.query, session.chains, session.used_chains);
  const page = Math.max(1, Number(location.query.get('page')) || 1);
  const perChain = { chain, chains: session.chains, network };
  switch (location.path) {
    case '/':
      return <AccountPage key={network} chains={session.chains} network={network} />;
    case '/tokens':
      return <TokensPage />;
    case '/addresses':
      return <AddressesPage key={`${network}-${chain}`} {...perChain} />;
    case '/webhooks':
      return <WebhooksPage key={`${network}-${chain}`} {...perChain} />;
    case '/notifications':
      return <NotificationsPage key={network} {...perChain} page={page} />;
    case '/transactions':
      return <TransactionsPage key={network} {...perChain} page={page} />;
    default:
      return <NotFoundPage />;
  }
}

export function App() {
  const session = useSession();
  const location = useLocation();
  const [bootError, setBootError] = useState<string | null>(null);
  const firstPath = useRef(location.path);

  useEffect(() => {
    whenUnauthenticated(sessionEnded);
    loadSession().catch((error) => setBootError(messageOf(error)));
  }, []);

  const signedIn = session?.signed_in === true;
  const isPublic = PUBLIC.has(location.path);
  // Signed out on a private page: to sign-in, coming back afterwards. Signed in on sign-in: onwards.
  useEffect(() => {
    if (!session) return;
    if (!signedIn && !isPublic) {
      const next = location.path + (location.query.toString() ? `?${location.query}` : '');
      navigate(href('/sign-in', next === '/' ? {} : { next }), true);
    } else if (signedIn && isPublic) {
      navigate(href(nextOf(location)), true);
    }
  }, [session, signedIn, isPublic, location]);

  // After a navigation (not the first page), focus moves to the new page's content for screen readers.
  useEffect(() => {
    if (location.path === firstPath.current) return;
    firstPath.current = '';
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.path]);

  if (bootError) {
    return (
      <PublicLayout>
        <ErrorBanner message={bootError} />
      </PublicLayout>
    );
  }
  if (!session || signedIn === isPublic) {
    return (
      <PublicLayout>
        <p aria-live="polite">Loading…</p>
      </PublicLayout>
    );
  }
  if (!signedIn) {
    return (
      <PublicLayout>
        {location.path === '/sign-up' ? <SignUpPage session={session} /> : <SignInPage session={session} />}
      </PublicLayout>
    );
  }
  return (
    <Layout
      email={session.email ?? ''}
      path={location.path}
      onSignOut={() => {
        void signOut().then(() => navigate(href('/sign-in'), true));
      }}
    >
      <SignedInPage location={location} session={session} />
    </Layout>
  );
}
