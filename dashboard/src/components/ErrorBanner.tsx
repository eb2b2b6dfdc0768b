/** An error the user must see: announced at once by screen readers (role="alert"). */
export function ErrorBanner({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <div class="banner banner-error" role="alert">
      {message}
    </div>
  );
}

/** A confirmation of what just happened, announced politely. */
export function Notice({ message }: { message: string | null | undefined }) {
  return (
    <div class={message ? 'banner banner-ok' : 'visually-hidden'} role="status">
      {message ?? ''}
    </div>
  );
}
