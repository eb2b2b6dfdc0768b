import type { AppContext } from '../../../app-context.ts';
import type { FamilyModule } from '../../../chains/family.ts';
import type { ChainName } from '../../../chains/types.ts';

/** What every shared chain route plugin is registered with: one chain, and the family that serves it. */
export interface ChainRoutesOptions {
  ctx: AppContext;
  chain: ChainName;
  family: FamilyModule;
}
