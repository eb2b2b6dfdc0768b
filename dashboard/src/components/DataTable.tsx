import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Cells that hold hashes or addresses: monospace, allowed to break. */
  mono?: boolean;
  /** Short values that read badly broken (dates, amounts): kept on one line. */
  nowrap?: boolean;
  /** Row actions: the column stays at the right edge while the table scrolls, so they stay in reach. */
  sticky?: boolean;
}

/** Whether the element is wider than it shows (it scrolls sideways), followed as it resizes. */
function useOverflows(element: { current: HTMLElement | null }): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target || typeof ResizeObserver === 'undefined') return;
    const measure = () => setOverflows(target.scrollWidth > target.clientWidth + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(target);
    measure();
    return () => observer.disconnect();
  }, [element]);
  return overflows;
}

function cellClass<T>(column: Column<T>): string | undefined {
  const classes = [column.mono && 'mono', column.nowrap && 'nowrap', column.sticky && 'sticky-end'];
  return classes.filter(Boolean).join(' ') || undefined;
}

/**
 * A table with column headers (`th scope="col"`) inside a container that scrolls sideways on a phone,
 * itself focusable so that a keyboard can scroll it too. When it is wider than the screen, a shadow at the
 * hidden edge and a line above it say so.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty: ComponentChildren;
  rowClass?: (row: T) => string | undefined;
  testId?: string;
}) {
  const scroller = useRef<HTMLElement>(null);
  const overflows = useOverflows(scroller);
  if (props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  return (
    <>
      {overflows && (
        <p class="scroll-hint" aria-hidden="true">
          Scroll sideways for more →
        </p>
      )}
      <section
        ref={scroller}
        class={overflows ? 'table-scroll overflows' : 'table-scroll'}
        aria-label={props.caption}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
        tabIndex={0}
      >
        <table data-testid={props.testId}>
          <caption class="visually-hidden">{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((column) => (
                <th key={column.header} scope="col" class={column.sticky ? 'sticky-end' : undefined}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={props.rowKey(row)} class={props.rowClass?.(row)}>
                {props.columns.map((column) => (
                  <td key={column.header} class={cellClass(column)}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** Previous / next for the gateway's paged lists. */
export function Pager(props: { page: number; lastPage: number; onPage: (page: number) => void }) {
  if (props.lastPage <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>
        Page {props.page} of {props.lastPage}
      </span>
      <button
        type="button"
        disabled={props.page >= props.lastPage}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
