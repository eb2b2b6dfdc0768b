import { useEffect, useRef, useState } from 'preact/hooks';
import { href, navigate } from '../router.ts';

interface Item {
  label: string;
  action: () => void;
}

/**
 * The signed-in user's menu, as the ARIA menu button pattern: Enter, Space or Down opens it on the first
 * entry (Up on the last), the arrows, Home and End move, Escape closes it and returns to the button, Tab
 * closes it and moves on.
 */
export function UserMenu({ email, onSignOut }: { email: string; onSignOut: () => void }) {
  const [open, setOpen] = useState(false);
  const [focusIndex, setFocusIndex] = useState(0);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const items: Item[] = [
    { label: 'Account', action: () => navigate(href('/')) },
    { label: 'API tokens', action: () => navigate(href('/tokens')) },
    { label: 'Sign out', action: onSignOut },
  ];

  useEffect(() => {
    if (!open) return;
    const entries = menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]');
    entries?.[focusIndex]?.focus();
  }, [open, focusIndex]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const openAt = (index: number) => {
    setFocusIndex(index);
    setOpen(true);
  };
  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  };
  const choose = (item: Item) => {
    close(true);
    item.action();
  };

  const onButtonKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openAt(0);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(items.length - 1);
    }
  };
  const onMenuKey = (event: KeyboardEvent) => {
    const last = items.length - 1;
    const moves: Record<string, number> = {
      ArrowDown: focusIndex === last ? 0 : focusIndex + 1,
      ArrowUp: focusIndex === 0 ? last : focusIndex - 1,
      Home: 0,
      End: last,
    };
    const move = moves[event.key];
    if (move !== undefined) {
      event.preventDefault();
      setFocusIndex(move);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      const item = items[focusIndex];
      if (item) choose(item);
    }
  };

  return (
    <div class="user-menu">
      <button
        ref={button}
        type="button"
        class="user-button"
        id="user-menu-button"
        aria-haspopup="menu"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls="user-menu"
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={onButtonKey}
      >
        <span class="visually-hidden">Signed in as </span>
        <span class="user-email">{email}</span>
        <span aria-hidden="true" class="caret">
          ▾
        </span>
      </button>
      {open && (
        <div
          ref={menu}
          id="user-menu"
          role="menu"
          aria-labelledby="user-menu-button"
          class="menu"
          onKeyDown={onMenuKey}
        >
          {items.map((item, index) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={index === focusIndex ? 0 : -1}
              onClick={() => choose(item)}
              onMouseEnter={() => setFocusIndex(index)}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
