import { useState } from 'preact/hooks';

/** Copies a text to the clipboard and says so (politely, for screen readers). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text instead' : ''}
      </span>
    </span>
  );
}
