import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Cells that hold hashes or addresses: monospace, allowed to break. */
  mono?: boolean;
}

/**
 * A table with column headers (`th scope="col"`) inside a container that scrolls sideways on a phone,
 * itself focusable so that a keyboard can scroll it too.
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
  if (props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section class="table-scroll" aria-label={props.caption} tabIndex={0}>
      <table data-testid={props.testId}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} class={props.rowClass?.(row)}>
              {props.columns.map((column) => (
                <td key={column.header} class={column.mono ? 'mono' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
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
