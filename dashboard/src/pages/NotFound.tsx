import { useTitle } from '../hooks.ts';
import { href } from '../router.ts';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no such dashboard page. Go to <a href={href('/')}>your account</a>.
      </p>
    </>
  );
}
