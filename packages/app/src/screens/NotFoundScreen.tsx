import { EmptyState } from '../components/States.js';
import { Link } from '../components/Link.js';

export function NotFoundScreen({ home }: { home: string }) {
  return (
    <main className="page">
      <EmptyState
        icon="compass"
        title="Nothing here"
        action={
          <Link className="btn" href={home}>
            Go back home
          </Link>
        }
      >
        This address does not match any page.
      </EmptyState>
    </main>
  );
}
