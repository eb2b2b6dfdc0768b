// `node --import ./test/helpers/module-trace/register.mjs ...`: records the modules the process resolves.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
