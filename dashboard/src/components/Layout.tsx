import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentNetwork, NETWORKS, type Network, onNetworkChange, setNetwork } from '../network.ts';
import { href } from '../router.ts';
import { SelectField } from './Field.tsx';
import { UserMenu } from './UserMenu.tsx';

export const NAV: readonly { path: string; label: string }[] = [
  { path: '/', label: 'Account' },
  { path: '/tokens', label: 'API tokens' },
  { path: '/addresses', label: 'Addresses' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/notifications', label: 'Notifications' },
  { path: '/transactions', label: 'Transactions' },
];

export function useNetwork(): Network {
  const [network, set] = useState(currentNetwork);
  useEffect(() => onNetworkChange(set), []);
  return network;
}

/** Mainnet or testnet for every call the pages make (sent as X-Network). */
export function NetworkSwitch() {
  const network = useNetwork();
  return (
    <SelectField
      compact
      label="Network"
      value={network}
      options={NETWORKS.map((value) => ({ value, label: value === 'mainnet' ? 'Mainnet' : 'Testnet' }))}
      onChange={(value) => setNetwork(value as Network)}
    />
  );
}

/** The frame of every signed-in page: header (brand, network, user menu), the main navigation, the page. */
export function Layout(props: {
  email: string;
  path: string;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  const network = useNetwork();
  return (
    <div class={`shell network-${network}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="header">
        <a class="brand" href={href('/')}>
          Switchyard
        </a>
        <div class="header-controls">
          <NetworkSwitch />
          <UserMenu email={props.email} onSignOut={props.onSignOut} />
        </div>
      </header>
      <nav aria-label="Main" class="nav">
        <ul>
          {NAV.map((item) => (
            <li key={item.path}>
              <a href={href(item.path)} aria-current={props.path === item.path ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {network === 'testnet' && (
        <p class="network-banner">Testnet: every page shows and changes your testnet data.</p>
      )}
      <main id="main" tabIndex={-1} class="main">
        {props.children}
      </main>
    </div>
  );
}

/** The frame of the signed-out pages (sign in, sign up). */
export function PublicLayout({ children }: { children: ComponentChildren }) {
  return (
    <div class="shell public">
      <header class="header">
        <span class="brand">Switchyard</span>
      </header>
      <main id="main" tabIndex={-1} class="main narrow">
        {children}
      </main>
    </div>
  );
}
