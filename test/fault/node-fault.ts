/** The ways the fault proxy can misbehave on one JSON-RPC request, as a node or what stands before it does. */
export type NodeFault =
  /** Answered as the upstream answers. */
  | { kind: 'none' }
  /** Answered as the upstream answers, after a pause drawn from [minMs, maxMs]. */
  | { kind: 'delay'; minMs: number; maxMs: number }
  /** The connection is closed without an answer. */
  | { kind: 'drop' }
  /** HTTP 429 with Retry-After, as a provider over its rate limit. */
  | { kind: 'rate-limit'; retryAfterSeconds: number }
  /** An HTTP error status, as a node or its load balancer gives when it fails. */
  | { kind: 'server-error'; status: 500 | 502 | 503 }
  /** The upstream's answer cut mid-JSON: the headers promise the whole body, the connection ends halfway. */
  | { kind: 'truncated-body' }
  /** HTTP 200 with an HTML page in place of JSON. */
  | { kind: 'not-json' }
  /** HTTP 200 with the upstream's JSON-RPC answer, its `result` replaced by a value of another type. */
  | { kind: 'wrong-shape' }
  /**
   * A node `blocks` behind the upstream: its head is that much lower, and it knows nothing above it
   * (blocks, receipts and transactions there are null; `latest` means its own head).
   */
  | { kind: 'behind'; blocks: number };

export type NodeFaultKind = NodeFault['kind'];

/** A short name for logs and test titles: `server-error 503`, `behind 5`. */
export function describeFault(fault: NodeFault): string {
  switch (fault.kind) {
    case 'delay':
      return `delay ${fault.minMs}-${fault.maxMs} ms`;
    case 'rate-limit':
      return `rate-limit (Retry-After ${fault.retryAfterSeconds})`;
    case 'server-error':
      return `server-error ${fault.status}`;
    case 'behind':
      return `behind ${fault.blocks}`;
    default:
      return fault.kind;
  }
}
